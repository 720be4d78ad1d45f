// Shared by the byte-per-cell kernels (built after board.cl). Everything that does not change during a run is a build-time define
// (runtime specialisation: the host compiles one program per rule, topology and tile shape):
//   TORUS         1: both edges wrap; 0: plane, cells outside the board are dead
//   RULE_BITS     18-bit rule: bit (9*alive + n) set means the cell lives next generation with n
//                 live neighbours (birth mask in bits 0..8, survival mask in bits 9..17)
//   RULE_STORAGE  where the 18-entry rule table lives: 0 register (shift of RULE_BITS),
//                 1 __constant table, 2 __local table copied by the work-group
// Cells are one byte (0 or 1); row y starts at byte y*pitch. Cell indices are 64-bit (ulong),
// because boards beyond 2^31 cells are allowed.

#ifndef TORUS
#error "TORUS must be defined"
#endif
#ifndef RULE_BITS
#error "RULE_BITS must be defined"
#endif
#ifndef RULE_STORAGE
#define RULE_STORAGE 0
#endif

#define RULE_ENTRY(i) ((uchar)((RULE_BITS >> (i)) & 1u))
__constant uchar rule_table[18] = {
    RULE_ENTRY(0),  RULE_ENTRY(1),  RULE_ENTRY(2),  RULE_ENTRY(3),  RULE_ENTRY(4),  RULE_ENTRY(5),
    RULE_ENTRY(6),  RULE_ENTRY(7),  RULE_ENTRY(8),  RULE_ENTRY(9),  RULE_ENTRY(10), RULE_ENTRY(11),
    RULE_ENTRY(12), RULE_ENTRY(13), RULE_ENTRY(14), RULE_ENTRY(15), RULE_ENTRY(16), RULE_ENTRY(17)};

// The rule lookup for table index i = 9*alive + neighbours. With RULE_STORAGE 2 the kernel must
// have declared `__local uchar rule_local[18]` and filled it with RULE_LOCAL_COPY before a barrier.
#if RULE_STORAGE == 2
#define RULE_LOOKUP(i) (rule_local[(i)])
#define RULE_LOCAL_DECLARE __local uchar rule_local[18];
#define RULE_LOCAL_COPY(lid, count)                                      \
    for (uint rule_i = (lid); rule_i < 18u; rule_i += (count)) rule_local[rule_i] = rule_table[rule_i];
#elif RULE_STORAGE == 1
#define RULE_LOOKUP(i) (rule_table[(i)])
#define RULE_LOCAL_DECLARE
#define RULE_LOCAL_COPY(lid, count)
#else
#define RULE_LOOKUP(i) ((uchar)((RULE_BITS >> (i)) & 1u))
#define RULE_LOCAL_DECLARE
#define RULE_LOCAL_COPY(lid, count)
#endif
