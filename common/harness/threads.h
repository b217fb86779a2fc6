// Runs one body on several threads of a rank at once, for cases about what a runtime does when its calls race.
// Header-only: the body is a template.
#pragma once

#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include "harness/status.h"

namespace vmr {

// body(t) on threads 0..n-1, all started before any is joined. Returns the result of the lowest-numbered thread that
// did not pass, its detail prefixed "thread t of n: "; a thread the system would not start is a HARNESS (the
// started ones are joined first).
template <class Body>
Status on_threads(int n, Body body) {
  std::vector<Status> results(n);
  std::vector<std::thread> threads;
  std::string refused;
  try {
    for (int t = 0; t < n; ++t)
      threads.emplace_back([&results, &body, t] {
        Status r = body(t);
        results[t].verdict = r.verdict;  // member by member: nvcc warns on assigning a [[nodiscard]] type
        results[t].detail = std::move(r.detail);
      });
  } catch (const std::system_error& e) {
    refused = e.what();
  }
  const size_t started = threads.size();
  for (auto& t : threads) t.join();
  if (started < size_t(n))
    return Status::harness("could not start thread " + std::to_string(started) + " of " + std::to_string(n) + ": " +
                           refused);
  for (int first = 0; first < n; ++first)
    if (!results[first].ok())
      return {results[first].verdict,
              "thread " + std::to_string(first) + " of " + std::to_string(n) + ": " + results[first].detail};
  return Status::pass();
}

}  // namespace vmr
