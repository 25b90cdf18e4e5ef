import TestParallelism

/// How many test cases run at once in this test process (see Tests/TestParallelism/TestParallelism.c).
public var testRunWidth: Int { Int(test_parallelism_width()) }
