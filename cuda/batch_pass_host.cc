// The device pass emulated on the host: the same flattened model (own copies of the mesh arrays
// and fields, mesh views into them), the same task list and slots, RunPassTask in a loop. The
// batched engine uses it for device="cuda" when MJPORTAL_DEVICE_EMULATION=1, so that the tests
// check the device path's data layout and result handling on machines without a GPU.
#include <vector>

#include "cuda/batch_pass.h"
#include "cuda/pass_task.h"

namespace mjportal::cuda {
namespace {

class HostPass final : public DevicePass {
 public:
  explicit HostPass(const DeviceModelSource& src)
      : geom_type_(src.geom_type, src.geom_type + src.ngeom),
        geom_size_(src.geom_size, src.geom_size + 3L * src.ngeom),
        vert_(src.mesh_vert, src.mesh_vert + 3L * src.nmeshvert),
        graph_(src.mesh_graph, src.mesh_graph + src.nmeshgraph),
        mesh_(src.ngeom) {
    if (src.fields != nullptr)
      fields_.assign(src.fields, src.fields + src.nfield_entries);
    if (src.faces != nullptr)
      faces_.assign(src.faces, src.faces + src.nface_entries);
    if (src.mesh_shape != nullptr)
      shapes_.assign(src.mesh_shape, src.mesh_shape + src.nmesh);
    BuildMeshViews(src, vert_.data(), graph_.data(),
                   src.fields != nullptr ? fields_.data() : nullptr,
                   src.faces != nullptr ? faces_.data() : nullptr, shapes_.data(), mesh_.data());
    model_.ngeom = src.ngeom;
    model_.geom_type = geom_type_.data();
    model_.geom_size = geom_size_.data();
    model_.mesh = mesh_.data();
    model_.settings = src.settings;
  }

  bool Run(int nworld, const double* pos, const double* mat, const DeviceTask* tasks, int ntask,
           collision::Contact* contacts, int* count, std::string* why) override {
    (void)nworld;
    (void)why;
    // Each task into its slot, as on the device, then the slots packed in task order.
    slots_.resize(static_cast<size_t>(ntask) * kMaxTaskContacts);
    const PassLaunch l = {model_, pos, mat, tasks, ntask, slots_.data(), count};
    for (int i = 0; i < ntask; ++i)
      RunPassTask(l, i);
    long packed = 0;
    for (int i = 0; i < ntask; ++i) {
      for (int k = 0; k < count[i]; ++k)
        contacts[packed++] = slots_[static_cast<size_t>(i) * kMaxTaskContacts + k];
    }
    return true;
  }

 private:
  std::vector<int> geom_type_;
  std::vector<double> geom_size_;
  std::vector<float> vert_;
  std::vector<int> graph_;
  std::vector<std::int32_t> fields_, faces_;
  std::vector<collision::HullShape> shapes_;
  std::vector<collision::MeshView> mesh_;
  std::vector<collision::Contact> slots_;  // [ntask][kMaxTaskContacts]
  PassModel model_;
};

}  // namespace

std::unique_ptr<DevicePass> DevicePass::CreateHostEmulation(const DeviceModelSource& model) {
  return std::make_unique<HostPass>(model);
}

}  // namespace mjportal::cuda
