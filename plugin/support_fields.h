// Support fields of a model's convex meshes (fast mode): one field per distinct mesh, built once
// per model when its first mjData is made and shared by every mjData of that model.
#pragma once

#include <mujoco/mujoco.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "collision/contact.h"
#include "plugin/mesh_view.h"

namespace mjportal {

// Meshes with fewer vertices answer support queries by MuJoCo's exact search (a scan or a short
// climb beats the field's trigonometry there); larger ones get a field.
constexpr int kSupportFieldMinVertices = 32;

class ModelSupportFields {
 public:
  // The fields of m at resolution res: built on first use, then shared (thread-safe). The store
  // lives while any instance holds it.
  static std::shared_ptr<const ModelSupportFields> Acquire(const mjModel* m, int res);

  // Field entries of mesh `mesh_id` (res × res), or nullptr when the mesh has none.
  const std::int32_t* field(int mesh_id) const {
    return offset_[mesh_id] < 0 ? nullptr : entries_.data() + offset_[mesh_id];
  }
  // All fields back to back (bytes() / 4 entries) and mesh `mesh_id`'s start in them (-1: none),
  // for copying the store elsewhere (the CUDA pass).
  const std::int32_t* data() const { return entries_.data(); }
  long offset(int mesh_id) const { return offset_[mesh_id]; }
  // Mesh `mesh_id`'s hull vertices widened to double in hull-local order (3 per vertex), or
  // nullptr when it has no hull graph: the hill climbs read them without indirection.
  const double* hull(int mesh_id) const {
    return hull_offset_[mesh_id] < 0 ? nullptr : hull_.data() + hull_offset_[mesh_id];
  }
  // Hull vertices the contact patch's feature walk of mesh `mesh_id` may gather: its largest
  // face's vertex count (MeshView::feature_walk).
  int feature_walk(int mesh_id) const { return feature_walk_[mesh_id]; }
  // Mesh `mesh_id`'s face table (MeshView::faces: its faces of more than kMaxFeaturePoints
  // vertices by hull vertex), or nullptr when it has no such face or no hull graph. All tables
  // back to back (faces_entries() entries) and each mesh's start (-1: none), for the CUDA pass.
  const std::int32_t* faces(int mesh_id) const {
    return faces_offset_[mesh_id] < 0 ? nullptr : faces_.data() + faces_offset_[mesh_id];
  }
  const std::int32_t* faces_data() const { return faces_.data(); }
  long faces_offset(int mesh_id) const { return faces_offset_[mesh_id]; }
  long faces_entries() const { return static_cast<long>(faces_.size()); }
  // cos² of mesh `mesh_id`'s warm-climb cone (MeshView::warm_cos2, from its hull's size).
  double warm_cos2(int mesh_id) const { return warm_cos2_[mesh_id]; }
  // Mesh `mesh_id`'s hull shape for MPR's start (MeshView::shape).
  const collision::HullShape* shape(int mesh_id) const { return &shape_[mesh_id]; }
  int res() const { return res_; }
  int count() const { return count_; }
  std::size_t bytes() const { return entries_.size() * sizeof(std::int32_t); }

 private:
  ModelSupportFields(const mjModel* m, int res);

  int res_ = 0;
  int count_ = 0;                            // meshes with a field
  std::vector<std::int32_t> entries_;        // all fields, back to back
  std::vector<long> offset_;                 // per mesh: start in entries_, or -1
  std::vector<double> hull_;                 // widened hull vertices of every mesh with a graph
  std::vector<long> hull_offset_;            // per mesh: start in hull_, or -1
  std::vector<int> feature_walk_;            // per mesh: its largest polygon's vertex count
  std::vector<double> warm_cos2_;            // per mesh: support_field::WarmConeCos2 of its hull
  std::vector<collision::HullShape> shape_;  // per mesh: collision::MeshShape of its hull
  std::vector<std::int32_t> faces_;          // face tables of the meshes with large faces
  std::vector<long> faces_offset_;           // per mesh: start in faces_, or -1
};

// Mesh geom g as fast mode's solvers see it: MuJoCo's mesh (MeshViewOf) with warm-started
// climbs and, from `fields` (when given), its support field (refined as `refine` says), widened
// hull, feature walk, face table, warm cone and hull shape.
inline collision::MeshView FastMeshViewOf(const mjModel* m, int g, const ModelSupportFields* fields,
                                          bool refine) {
  collision::MeshView mesh = MeshViewOf(m, g);
  mesh.warm_start = true;
  if (fields != nullptr) {
    const int id = m->geom_dataid[g];
    mesh.field = fields->field(id);
    mesh.hull_vert = fields->hull(id);
    mesh.field_res = fields->res();
    mesh.field_refine = refine;
    mesh.feature_walk = fields->feature_walk(id);
    mesh.faces = fields->faces(id);
    mesh.warm_cos2 = fields->warm_cos2(id);
    mesh.shape = fields->shape(id);
  }
  return mesh;
}

}  // namespace mjportal
