// A fixed set of worker threads for the batched engine's parallel loops: Run(n, fn) calls fn(i)
// for every i in [0, n) across the workers and the calling thread, and returns when all are done.
// Which thread runs which i varies; callers make each i independent (one world each), so results
// do not depend on it.
#pragma once

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace mjportal::batch {

class ThreadPool {
 public:
  // `threads` >= 1 counts the calling thread: threads − 1 workers are started.
  explicit ThreadPool(int threads) {
    for (int t = 1; t < threads; ++t)
      workers_.emplace_back([this] { Work(); });
  }
  ~ThreadPool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
      ++generation_;
    }
    wake_.notify_all();
    for (std::thread& w : workers_)
      w.join();
  }
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }

  void Run(int n, const std::function<void(int)>& fn) {
    if (n <= 1 || workers_.empty()) {  // nothing to share: no wake-up round trip
      for (int i = 0; i < n; ++i)
        fn(i);
      return;
    }
    {
      std::lock_guard<std::mutex> lock(mutex_);
      fn_ = &fn;
      n_ = n;
      next_.store(0);
      busy_ = static_cast<int>(workers_.size());
      ++generation_;
    }
    wake_.notify_all();
    Drain();
    std::unique_lock<std::mutex> lock(mutex_);
    done_.wait(lock, [this] { return busy_ == 0; });
    fn_ = nullptr;
  }

 private:
  // Takes indices until none are left.
  void Drain() {
    for (int i = next_.fetch_add(1); i < n_; i = next_.fetch_add(1))
      (*fn_)(i);
  }

  void Work() {
    long seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        wake_.wait(lock, [&] { return generation_ != seen; });
        seen = generation_;
        if (stop_)
          return;
      }
      Drain();
      {
        std::lock_guard<std::mutex> lock(mutex_);
        --busy_;
      }
      done_.notify_one();
    }
  }

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_, done_;
  const std::function<void(int)>* fn_ = nullptr;
  int n_ = 0;
  int busy_ = 0;
  long generation_ = 0;
  bool stop_ = false;
  std::atomic<int> next_{0};
};

}  // namespace mjportal::batch
