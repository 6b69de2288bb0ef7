#!/usr/bin/env python3
"""record-step's start-up, builds side by side (docs/performance.md,
"record-step"): one whole process per event, the 1 KB Claude Code
PreToolUse of e2e's benchPayload on stdin, a fresh temporary record
directory per arm per round (one warm-up event starts the session, then
each file is cut back to that length after every run, so every event lands
at the same place), the arms interleaved, their order flipped every run.
Prints per arm the median wall time, the mean and median CPU time
(user+sys from wait4) and the median minor page faults.

usage: scripts/startup-bench.py RUNS ROUNDS NAME=BINARY ... [NAME=sh]
  (an arm whose path is sh runs sh -c 'cat >> FILE', the floor)"""
import glob
import os
import shutil
import statistics
import sys
import tempfile
import time
runs, rounds = int(sys.argv[1]), int(sys.argv[2])
arms = [a.split('=', 1) for a in sys.argv[3:]]
payload = (b'{"session_id":"bench","transcript_path":"/home/dev/.claude/projects/-home-dev-p/bench.jsonl","cwd":"/home/dev/p",'
           b'"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Edit","tool_use_id":"toolu_01ABCDEFGHIJKLMNOPQRSTUV",'
           b'"tool_input":{"file_path":"/home/dev/p/internal/server/handler.go","old_string":"' + b'x' * 400 +
           b'","new_string":"' + b'y' * 400 + b'"}}')

def spawn(argv, env):
    r, w = os.pipe()
    t0 = time.perf_counter_ns()
    pid = os.fork()
    if pid == 0:
        os.dup2(r, 0); os.close(r); os.close(w)
        fd = os.open('/dev/null', os.O_WRONLY); os.dup2(fd, 1); os.dup2(fd, 2)
        try:
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    os.close(r); os.write(w, payload); os.close(w)
    _, st, ru = os.wait4(pid, 0)
    wall = time.perf_counter_ns() - t0
    if st != 0: sys.exit(f'{argv} exit {st}')
    return wall / 1e6, (ru.ru_utime + ru.ru_stime) * 1e3, ru.ru_minflt

print('load', os.getloadavg())
for rnd in range(rounds):
    setup = {}
    for name, path in arms:
        d = tempfile.mkdtemp(prefix='rs-')
        env = {'PATH': '/usr/bin:/bin', 'HOME': d, 'LOGBOOK_DIR': d, 'LOGBOOK_NOW': '2026-05-02T00:00:00Z'}
        if path == 'sh':
            argv = ['/bin/sh', '-c', 'cat >> ' + d + '/events']
        else:
            argv = [path]
            spawn(argv, env)  # warm-up: starts the session (header, hashes the binary)
        files = [f for f in glob.glob(d + '/**', recursive=True) if os.path.isfile(f)]
        setup[name] = (argv, env, {f: os.path.getsize(f) for f in files})
    res = {n: ([], [], []) for n, _ in arms}
    for i in range(runs):
        order = arms if i % 2 == 0 else arms[::-1]
        for name, _ in order:
            argv, env, sizes = setup[name]
            w, c, f = spawn(argv, env)
            res[name][0].append(w); res[name][1].append(c); res[name][2].append(f)
            for f, s in sizes.items(): os.truncate(f, s)
    for argv, env, _ in setup.values():
        shutil.rmtree(env['HOME'], ignore_errors=True)
    print(f'round {rnd+1} load {os.getloadavg()[0]:.2f}')
    for name, _ in arms:
        ws, cs, fs = res[name]
        print(f'  {name:8s} wall median {statistics.median(ws):7.3f} ms   cpu mean {statistics.mean(cs):7.3f} ms   cpu median {statistics.median(cs):6.2f}   minflt median {statistics.median(fs):.0f}')
