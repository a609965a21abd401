/* PLACEHOLDER: bench helper being written by a helper this session. */
int fovea_bench_placeholder;
