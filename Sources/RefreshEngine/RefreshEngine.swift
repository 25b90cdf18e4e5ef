// Placeholder; the refresh engine lands here.
