// Placeholder; the console renderer lands here.
