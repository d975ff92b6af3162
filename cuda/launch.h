// Launch geometry shared by the batched kernels: one thread per task, fixed block size.
#pragma once

namespace mjportal::cuda {

constexpr int kThreadsPerBlock = 128;

// Blocks covering `tasks` threads.
inline int BlocksFor(int tasks) {
  return (tasks + kThreadsPerBlock - 1) / kThreadsPerBlock;
}

}  // namespace mjportal::cuda
