#include "plugin/support_fields.h"

#include <map>
#include <mutex>
#include <tuple>
#include <utility>

#include "collision/mpr_start.h"
#include "collision/support_field.h"
#include "plugin/face_table.h"
#include "plugin/mesh_view.h"

namespace mjportal {
namespace {

// Live stores by (model, resolution). Entries expire with their last instance; an expired entry
// is rebuilt, so a new model at a freed model's address never sees stale fields.
std::mutex registry_mutex;
// The key also holds the mesh arrays' address and size, so a model overwritten in place
// (mj_copyModel into it) gets new fields.
using Key = std::tuple<const mjModel*, const float*, int, int>;
std::map<Key, std::weak_ptr<const ModelSupportFields>> registry;

}  // namespace

ModelSupportFields::ModelSupportFields(const mjModel* m, int res)
    : res_(res),
      offset_(m->nmesh, -1),
      hull_offset_(m->nmesh, -1),
      feature_walk_(m->nmesh, 0),
      warm_cos2_(m->nmesh, collision::MeshView{}.warm_cos2),
      shape_(m->nmesh),
      faces_offset_(m->nmesh, -1) {
  // Each mesh's largest face (MuJoCo's polygons merge coplanar hull triangles), its warm cone
  // from its hull's vertex count, and its shape for MPR's start on polytope pairs.
  for (int id = 0; id < m->nmesh; ++id) {
    if (m->mesh_graphadr[id] >= 0)
      warm_cos2_[id] = collision::support_field::WarmConeCos2(m->mesh_graph[m->mesh_graphadr[id]]);
    feature_walk_[id] = LargestPolygon(m, id);
    shape_[id] = collision::MeshShape(
        m->mesh_vert + 3 * m->mesh_vertadr[id], m->mesh_vertnum[id],
        m->mesh_graphadr[id] < 0 ? nullptr : m->mesh_graph + m->mesh_graphadr[id]);
  }
  // Only meshes that some mesh geom uses, and that are large enough to profit.
  std::vector<int> first_geom(m->nmesh, -1);
  for (int g = 0; g < m->ngeom; ++g) {
    const int id = m->geom_dataid[g];
    if (m->geom_type[g] == mjGEOM_MESH && id >= 0 && first_geom[id] < 0)
      first_geom[id] = g;
  }
  long total = 0;
  for (int id = 0; id < m->nmesh; ++id) {
    if (first_geom[id] >= 0 && m->mesh_vertnum[id] >= kSupportFieldMinVertices) {
      offset_[id] = total;
      total += static_cast<long>(res) * res;
      ++count_;
    }
  }
  entries_.resize(total);
  for (int id = 0; id < m->nmesh; ++id) {
    if (offset_[id] >= 0) {
      const collision::MeshView mesh = MeshViewOf(m, first_geom[id]);
      collision::BuildSupportField(mesh, res, entries_.data() + offset_[id]);
    }
  }
  // Widened hull copies of the used meshes that have a hull graph.
  for (int id = 0; id < m->nmesh; ++id) {
    if (first_geom[id] < 0 || m->mesh_graphadr[id] < 0)
      continue;
    const collision::MeshView mesh = MeshViewOf(m, first_geom[id]);
    const int numvert = mesh.graph[0];
    const int* globalid = mesh.graph + 2 + numvert;
    hull_offset_[id] = static_cast<long>(hull_.size());
    for (int i = 0; i < numvert; ++i) {
      for (int k = 0; k < 3; ++k)
        hull_.push_back(static_cast<double>(mesh.vert[3 * globalid[i] + k]));
    }
    // The face table, when the mesh has a face larger than a feature.
    const std::vector<std::int32_t> table = BuildFaceTable(m, id);
    if (!table.empty()) {
      faces_offset_[id] = static_cast<long>(faces_.size());
      faces_.insert(faces_.end(), table.begin(), table.end());
    }
  }
}

std::shared_ptr<const ModelSupportFields> ModelSupportFields::Acquire(const mjModel* m, int res) {
  std::lock_guard<std::mutex> lock(registry_mutex);
  for (auto it = registry.begin(); it != registry.end();) {
    it = it->second.expired() ? registry.erase(it) : std::next(it);
  }
  std::weak_ptr<const ModelSupportFields>& slot = registry[Key{m, m->mesh_vert, m->nmeshvert, res}];
  std::shared_ptr<const ModelSupportFields> fields = slot.lock();
  if (!fields) {
    fields.reset(new ModelSupportFields(m, res));
    slot = fields;
  }
  return fields;
}

}  // namespace mjportal
