//go:build race

package main

// raceEnabled: the race detector slows the command 5–20×. Tests of flags,
// formats and settings whose fits the engine's own race tests run skip
// under it; the tests of the command's goroutines (serve, interrupts,
// progress, project's reads) stay.
const raceEnabled = true
