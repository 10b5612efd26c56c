// Package suggest finds the word a user most likely meant ("did you mean").
package suggest

// Nearest returns the candidate closest to word by edit distance, if any is
// closer than maxDist; ties go to the earlier candidate.
func Nearest(word string, candidates []string, maxDist int) string {
	best, bestD := "", maxDist
	for _, c := range candidates {
		if d := distance(word, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// distance is the edit distance counting a swap of two neighbouring
// letters as one edit (optimal string alignment), as git's own "did you
// mean" does: "stauts" is one edit from status, as close as stats.
func distance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
