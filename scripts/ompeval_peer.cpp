// A peer for scripts/bench_multiway.py: OMPEval's EquityCalculator, one thread, timed in process.
//
// OMPEval is zekyll/OMPEval (C++). Its copy in the omp-wrapper sdist has the Monte Carlo
// commented out and the wrapper no longer builds, so build from OMPEval's own sources:
//   cd OMPEval && sed -i 's/static uint64_t min()/static constexpr uint64_t min()/;
//                         s/static uint64_t max()/static constexpr uint64_t max()/' omp/Random.h
//   sed -i '1i #include <functional>' omp/EquityCalculator.h      # GCC 12 wants both
//   g++ -O3 -march=native -std=c++14 -I. -Ilibdivide -DOMP_SOURCE_LAYOUT path/to/scripts/ompeval_peer.cpp \
//       omp/EquityCalculator.cpp omp/CardRange.cpp omp/CombinedRange.cpp omp/HandEvaluator.cpp \
//       -o omp_peer -lpthread
// usage: omp_peer AhKh random random -b 2c7dJh [-m stdev | -n hands] [-u update_s] [-r repeats]
//   exact enumeration unless -m (Monte Carlo to OMPEval's own stdev estimate) or -n (a fixed number of hands)
// prints one JSON line: equity of the first player, stdev, hands, median seconds of the runs.
// OMPEval checks its Monte Carlo stopping rule only every update interval (-u, default 1 ms here), and its
// batch stdev estimate is unreliable over few batches: compare at a fixed number of hands (-n).
#include <functional>
#ifdef OMP_SOURCE_LAYOUT
#include "omp/EquityCalculator.h"
#else
#include "EquityCalculator.h"
#endif
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
    double update = 0.001;
    unsigned long long limit = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "-b")) board = argv[++i];
        else if (!strcmp(argv[i], "-m")) { exact = false; stdev = atof(argv[++i]); }
        else if (!strcmp(argv[i], "-r")) repeats = atoi(argv[++i]);
        else if (!strcmp(argv[i], "-u")) update = atof(argv[++i]);
        else if (!strcmp(argv[i], "-n")) { exact = false; stdev = 0; limit = strtoull(argv[++i], nullptr, 10); }
        else if (!strcmp(argv[i], "random")) ranges.push_back(CardRange("random"));
        else ranges.push_back(CardRange(argv[i]));
    }
    uint64_t boardMask = CardRange::getCardMask(board);
    std::vector<double> times;
    double eq0 = 0, se = 0; unsigned long long hands = 0;
    for (int r = 0; r < repeats; ++r) {
        EquityCalculator eq;  // a fresh calculator each run (reuse across boards misbehaves)
        if (limit) eq.setHandLimit(limit);
        auto t0 = std::chrono::steady_clock::now();
        eq.start(ranges, boardMask, 0, exact, stdev, nullptr, update, 1);
        eq.wait();
        auto t1 = std::chrono::steady_clock::now();
        times.push_back(std::chrono::duration<double>(t1 - t0).count());
        auto res = eq.getResults();
        eq0 = res.equity[0]; se = res.stdev; hands = res.hands;
    }
    std::sort(times.begin(), times.end());
    printf("{\"equity\": %.16f, \"stdev\": %.8f, \"hands\": %llu, \"median_s\": %.6f}\n", eq0, se, hands, times[times.size() / 2]);
}
