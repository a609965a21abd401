/* The SM clock while bench_stitch's rows run. The stitch kernels are paced by
 * the SMs' texture and L1 pipelines, which run at the SM clock, so their times
 * scale with it; the table's memory-bound rows do not. The probe is one thread
 * on a stream of its own that reads its SM's cycle counter and the global timer
 * when it starts and when it is stopped: cycles / time is the mean SM clock
 * over that interval (all SMs share one clock). It sleeps in between, so it
 * takes next to nothing from the work it measures. */
#ifndef FOVEA_BENCH_STITCH_CLOCK_H
#define FOVEA_BENCH_STITCH_CLOCK_H

#ifdef __cplusplus
extern "C" {
#endif

/* Start the probe and wait until it runs. @return 0, or -1 after a message. */
int bench_clock_probe_start(void);
/* Stop it: the mean SM clock in MHz since the start, or 0 after a message. */
double bench_clock_probe_stop(void);

#ifdef __cplusplus
}
#endif

#endif
