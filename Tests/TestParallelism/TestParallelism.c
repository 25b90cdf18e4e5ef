#include "TestParallelism.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* Swift Testing starts every test of a parallel run at once unless told a width (its default is unlimited). On a
   machine with two cores that means hundreds of tests queue for the same two threads of Swift's cooperative pool, and
   each test's time limit runs while it waits behind the whole suite: under load, dozens of tests that take
   milliseconds alone exceeded a minute. With a width, a test's time is its own work shared with a few neighbours.
   Six per core keeps the suite's waits (servers, child processes, sleeps) overlapped; measured in docs/testing.md.
   This runs before main, so before the runner reads the variable; a width set in the environment wins. */
__attribute__((constructor)) static void set_test_parallelism_width(void) {
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    if (cores < 1) cores = 1;
    char width[32];
    snprintf(width, sizeof width, "%ld", cores * 6);
    setenv("SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH", width, 0);
}

int test_parallelism_width(void) {
    const char *width = getenv("SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH");
    return width ? atoi(width) : 0;
}

/* Text output gives times in the local time zone (TZ). The tests' expectations of text are written in UTC, and a test
   of another zone names it (LocalTime's zone argument, the TZ of a child it starts): so the suite reads the same on
   every machine, whatever zone it is set to. */
__attribute__((constructor)) static void pin_time_zone_to_utc(void) {
    setenv("TZ", "UTC", 1);
}
