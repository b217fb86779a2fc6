// Which way the data of a read-bandwidth figure moves, said here once for every read case and every tool.
//
// A run on devices a,b puts rank 0 on GPU a (the exporter) and rank 1 on GPU b (the importer). Its bandwidth is
// data moving from GPU a to GPU b: rank 1 reading rank 0's memory. That is the cell "exporter a, importer b" of the
// triage's matrix, fleet's "a->b", and prom's exporter="a",importer="b"; the pair b,a measures the other way (the
// two differ on asymmetric PCIe). Every rank r reads the memory of rank r-1 (rank 0 that of the last rank) and says
// which way its data moved in the fact read_direction; only rank 1 sends the case's bandwidth metrics (the
// launcher keeps the first copy of a metric it gets, so a second rank's figure would stand in the same cell).
#pragma once

#include <string>
#include <vector>

namespace vmr {

// The rank whose figure is the case's: the importer of the pair, reading rank 0's memory.
constexpr int kBandwidthRank = 1;

// The rank whose memory rank `rank` reads for the bandwidth figure.
inline int read_source_rank(int rank, int ranks) { return (rank + ranks - 1) % ranks; }

// "rank 0 (GPU 3) -> rank 1 (GPU 5): rank 1 reads rank 0's memory"; without the GPUs where the devices are not
// GPUs (the host baseline ignores --devices).
inline std::string read_direction(int rank, const std::vector<int>& devices, bool gpus) {
  const int ranks = int(devices.size()), from = read_source_rank(rank, ranks);
  auto who = [&](int r) {
    return "rank " + std::to_string(r) + (gpus ? " (GPU " + std::to_string(devices[r]) + ")" : "");
  };
  return who(from) + " -> " + who(rank) + ": rank " + std::to_string(rank) + " reads rank " + std::to_string(from) +
         "'s memory";
}

}  // namespace vmr
