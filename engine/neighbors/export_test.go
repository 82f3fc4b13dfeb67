package neighbors

// ListsCSR exposes listsCSR to the external tests (the graph of a
// Result's lists, which Exact.SeedWith takes).
var ListsCSR = listsCSR
