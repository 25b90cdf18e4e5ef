// Placeholder; the loopback test server lands here.
