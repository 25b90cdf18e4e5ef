#ifndef TEST_PARALLELISM_H
#define TEST_PARALLELISM_H

/// How many test cases Swift Testing runs at once in this process, as set before the runner read it: the value of
/// SWT_EXPERIMENTAL_MAXIMUM_PARALLELIZATION_WIDTH (ours unless the environment gave one).
int test_parallelism_width(void);

#endif
