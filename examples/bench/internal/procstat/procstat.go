// Package procstat reads process CPU time from /proc for the benchmark
// programs (Linux only).
package procstat

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// TreeCPU is the CPU time used so far by pid and every process under it:
// utime+stime of the live ones plus cutime+cstime, what they used of the
// children they already reaped (the renderers of closed environments).
func TreeCPU(pid int) time.Duration {
	kids := map[int][]int{}
	ticks := map[int]int64{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		i := strings.LastIndexByte(string(stat), ')')
		f := strings.Fields(string(stat)[i+1:])
		if len(f) < 15 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		kids[ppid] = append(kids[ppid], p)
		for _, k := range []int{11, 12, 13, 14} { // utime stime cutime cstime
			n, _ := strconv.ParseInt(f[k], 10, 64)
			ticks[p] += n
		}
	}
	var total int64
	var walk func(int)
	walk = func(p int) {
		total += ticks[p]
		for _, k := range kids[p] {
			walk(k)
		}
	}
	walk(pid)
	return time.Duration(total) * 10 * time.Millisecond // USER_HZ is 100 on Linux
}
