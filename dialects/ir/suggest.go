package ir

// ClosestOp returns the registered op name closest to name (a likely typo:
// tir.shfit for tir.shift), or "" when none is close. Close means an edit
// distance (insertions, deletions, substitutions and swaps of adjacent
// characters) of at most a third of the name's length after the dialect
// prefix, and at least 1; a name of a registered dialect is compared with
// that dialect's ops only.
func ClosestOp(name string) string {
	dialect := Dialect(name)
	sameDialect := false
	for n := range registry {
		if Dialect(n) == dialect && n != name {
			sameDialect = true
			break
		}
	}
	limit := max((len(name)-len(dialect)-1)/3, 1)
	best, bestDist := "", limit+1
	for _, d := range RegisteredOps() {
		if sameDialect && Dialect(d.Name) != dialect {
			continue
		}
		if dist := EditDistance(name, d.Name); dist < bestDist {
			best, bestDist = d.Name, dist
		}
	}
	return best
}

// EditDistance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and swaps of adjacent characters
// each count one. Every "did you mean" of the tools uses it.
func EditDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
