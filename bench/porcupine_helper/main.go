// porcupine-helper: Porcupine's own checker on Jepsen register logs, for `dst bench checker` to
// compare against in the same run. Our code; Porcupine itself is not in this repository: the
// build script (ci/porcupine-helper.sh) points the module at a checkout of it.
//
// Usage: porcupine-helper [-repeat N] FILE...
// Prints one line per file: "FILE<TAB>ok|fail|unknown<TAB>NANOSECONDS<TAB>OPERATIONS", the median
// over N rounds of reading, parsing and checking that file, then "total<TAB>NANOSECONDS".
//
// The logs are read as Porcupine's own tests read Jepsen's etcd logs: a failed cas is a compare
// that did not match (the register held another value: a constraint, where dst check drops every
// :fail operation as one that did not happen), an :info operation may take effect at any time
// after its call (its process is never reused: Jepsen gives the next operation a new process
// number). A failed read or write did not happen: it is left out (Porcupine's tests make a failed
// read return anything, which is the same).
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/anishathalye/porcupine"
)

type regInput struct {
	op         int // 0 read, 1 write, 2 cas
	arg1, arg2 int
}

type regOutput struct {
	exists, ok, unknown bool
	value               int
}

const absent = -1000000 // the register before any write

var registerModel = porcupine.Model{
	Init: func() interface{} { return absent },
	Step: func(state, input, output interface{}) (bool, interface{}) {
		st := state.(int)
		in := input.(regInput)
		out := output.(regOutput)
		switch in.op {
		case 0:
			return out.unknown || (!out.exists && st == absent) || (out.exists && st == out.value), st
		case 1:
			return true, in.arg1
		default:
			matched := st == in.arg1
			next := st
			if matched {
				next = in.arg2
			}
			return out.unknown || matched == out.ok, next
		}
	},
}

// The op part of a Jepsen log line: PROCESS TYPE F VALUE, after whatever logger prefix.
var opLine = regexp.MustCompile(`(?:^|\s)(\d+)\s+:(invoke|ok|fail|info)\s+:(read|write|cas)\s+(.*?)\s*$`)
var casValue = regexp.MustCompile(`^\[\s*(-?\d+)\s+(-?\d+)\s*\]`)

func parseValue(f string, v string) (regInput, regOutput, error) {
	in := regInput{}
	out := regOutput{}
	switch f {
	case "read":
		in.op = 0
		if v != "nil" && !strings.HasPrefix(v, ":") {
			n, err := strconv.Atoi(strings.Fields(v)[0])
			if err != nil {
				return in, out, err
			}
			out.exists, out.value = true, n
		}
	case "write":
		in.op = 1
		if !strings.HasPrefix(v, ":") {
			n, err := strconv.Atoi(strings.Fields(v)[0])
			if err != nil {
				return in, out, err
			}
			in.arg1 = n
		}
	default:
		in.op = 2
		if m := casValue.FindStringSubmatch(v); m != nil {
			in.arg1, _ = strconv.Atoi(m[1])
			in.arg2, _ = strconv.Atoi(m[2])
		}
	}
	return in, out, nil
}

func parse(path string) ([]porcupine.Event, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var events []porcupine.Event
	pending := map[int]int{} // process -> id of its open operation
	dropped := map[int]bool{} // ids of failed reads and writes: their calls are left out
	id := 0
	scanner := bufio.NewScanner(file)
	scanner.Buffer(make([]byte, 1<<20), 1<<26)
	for line := 1; scanner.Scan(); line++ {
		m := opLine.FindStringSubmatch(scanner.Text())
		if m == nil {
			continue
		}
		proc, _ := strconv.Atoi(m[1])
		in, out, err := parseValue(m[3], m[4])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		switch m[2] {
		case "invoke":
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.CallEvent, Value: in, Id: id})
			pending[proc] = id
			id++
		case "ok", "fail":
			call, open := pending[proc]
			if !open {
				return nil, fmt.Errorf("%s:%d: a completion without an invocation", path, line)
			}
			delete(pending, proc)
			if m[2] == "fail" && in.op != 2 {
				dropped[call] = true
				continue
			}
			out.ok = m[2] == "ok"
			events = append(events, porcupine.Event{ClientId: proc, Kind: porcupine.ReturnEvent, Value: out, Id: call})
		case "info":
			// stays open: it returns after everything else (below)
		}
	}
	if err := scanner.Err(); err != nil {
		return nil, err
	}
	procs := make([]int, 0, len(pending))
	for p := range pending {
		procs = append(procs, p)
	}
	sort.Ints(procs)
	for _, p := range procs {
		events = append(events, porcupine.Event{ClientId: p, Kind: porcupine.ReturnEvent, Value: regOutput{unknown: true}, Id: pending[p]})
	}
	kept := events[:0]
	for _, e := range events {
		if !dropped[e.Id] {
			kept = append(kept, e)
		}
	}
	return kept, nil
}

func checkOnce(path string) (string, int, error) {
	events, err := parse(path)
	if err != nil {
		return "", 0, err
	}
	switch porcupine.CheckEventsTimeout(registerModel, events, 0) {
	case porcupine.Ok:
		return "ok", len(events) / 2, nil
	case porcupine.Illegal:
		return "fail", len(events) / 2, nil
	}
	return "unknown", len(events) / 2, nil
}

func main() {
	repeat := flag.Int("repeat", 5, "rounds per file; the median is printed")
	flag.Parse()
	if flag.NArg() == 0 || *repeat < 1 || *repeat > 1000 {
		fmt.Fprintln(os.Stderr, "usage: porcupine-helper [-repeat N (1..1000)] FILE...")
		os.Exit(2)
	}
	var total int64
	for _, path := range flag.Args() {
		times := make([]int64, 0, *repeat)
		verdict, ops := "", 0
		for r := 0; r < *repeat; r++ {
			start := time.Now()
			v, n, err := checkOnce(path)
			elapsed := time.Since(start).Nanoseconds()
			if err != nil {
				fmt.Fprintln(os.Stderr, "porcupine-helper:", err)
				os.Exit(2)
			}
			verdict, ops = v, n
			times = append(times, elapsed)
		}
		sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
		median := times[len(times)/2]
		total += median
		fmt.Printf("%s\t%s\t%d\t%d\n", path, verdict, median, ops)
	}
	fmt.Printf("total\t%d\n", total)
}
