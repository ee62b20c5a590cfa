// Measures every state of a task file through a running measurerd and prints one line per
// result:   measure_states TASK.json [SOCKET]
#include <measurerd/measurerd.h>

#include <cstdio>

int main(int argc, char** argv) try {
  if (argc < 2) return std::fprintf(stderr, "usage: %s TASK.json [SOCKET]\n", argv[0]), 2;
  measurerd::TaskFile tf = measurerd::read_task_file(argv[1]);
  measurerd::Client client(argc > 2 ? argv[2] : measurerd::default_socket_path());
  client.measure(
      tf.task, tf.states, tf.options, [&](std::size_t i, const measurerd::MeasureResult& r) {
        std::printf("%zu %s %.6f ms %.2f GFLOP/s\n", i, measurerd::error_name(r.error_no),
                    measurerd::mean_cost(r) * 1e3, measurerd::gflops(r, tf.task.flop_count()));
      });
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "measure_states: %s\n", e.what());
  return 1;
}
