package sparse

// SetUpLookingOnly makes Factor use the row-by-row algorithm whatever the
// cost (true) or choose by cost (false), and returns the previous setting.
func SetUpLookingOnly(on bool) bool {
	prev := upLookingOnly
	upLookingOnly = on
	return prev
}
