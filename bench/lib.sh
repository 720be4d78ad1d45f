# Helpers the bench scripts share (sourced: `. "$(dirname "$0")/lib.sh"`).

# The median of the numbers on standard input, one a line (the mean of the middle two for an even count).
median() { sort -g | awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
