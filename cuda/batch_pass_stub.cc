// Builds without nvcc: the batched pass has no CUDA backend (DevicePass::Create says so).
#include "cuda/batch_pass.h"

namespace mjportal::cuda {

std::unique_ptr<DevicePass> DevicePass::Create(const DeviceModelSource&, std::string* why) {
  *why = "this build has no CUDA backend (nvcc was not found when it was configured)";
  return nullptr;
}

}  // namespace mjportal::cuda
