// A peer for scripts/bench_multiway.py: OMPEval's EquityCalculator, one thread, timed in process.
//
// OMPEval's sources ship in the omp-wrapper sdist on PyPI (its own Python binding no longer
// builds: old pybind11, and GCC 12 wants XoroShiro128Plus::min/max constexpr). Build:
//   pip download --no-deps --no-binary :all: omp-wrapper && tar xzf omp_wrapper-0.7.tar.gz
//   S=omp_wrapper-0.7/src/omp_wrapper
//   sed -i 's/static uint64_t min()/static constexpr uint64_t min()/; s/static uint64_t max()/static constexpr uint64_t max()/' $S/Random.h
//   g++ -O3 -march=native -std=c++14 -I$S scripts/ompeval_peer.cpp $S/EquityCalculator.cpp \
//       $S/CardRange.cpp $S/CombinedRange.cpp $S/HandEvaluator.cpp -o omp_peer -lpthread
// usage: omp_peer AhKh random random -b 2c7dJh [-m stdev] [-r repeats]   (exact unless -m)
// prints one JSON line: equity of the first player, stdev, hands, median seconds of the runs.
#include "EquityCalculator.h"
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
#include <algorithm>
using namespace omp;
int main(int argc, char** argv) {
    std::vector<CardRange> ranges;
    std::string board;
    bool exact = true;
    double stdev = 0.0005;
    int repeats = 5;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-b")) board = argv[++i];
        else if (!strcmp(argv[i], "-m")) { exact = false; stdev = atof(argv[++i]); }
        else if (!strcmp(argv[i], "-r")) repeats = atoi(argv[++i]);
        else if (!strcmp(argv[i], "random")) ranges.push_back(CardRange("random"));
        else ranges.push_back(CardRange(argv[i]));
    }
    uint64_t boardMask = CardRange::getCardMask(board);
    std::vector<double> times;
    double eq0 = 0, se = 0; unsigned long long hands = 0;
    for (int r = 0; r < repeats; ++r) {
        EquityCalculator eq;  // a fresh calculator each run (reuse across boards misbehaves)
        auto t0 = std::chrono::steady_clock::now();
        eq.start(ranges, boardMask, 0, exact, stdev, nullptr, 0.2, 1);
        eq.wait();
        auto t1 = std::chrono::steady_clock::now();
        times.push_back(std::chrono::duration<double>(t1 - t0).count());
        auto res = eq.getResults();
        eq0 = res.equity[0]; se = res.stdev; hands = res.hands;
    }
    std::sort(times.begin(), times.end());
    printf("{\"equity\": %.16f, \"stdev\": %.8f, \"hands\": %llu, \"median_s\": %.6f}\n", eq0, se, hands, times[times.size() / 2]);
}
