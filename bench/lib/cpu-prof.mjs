// Preload (NODE_OPTIONS=--import) that records a V8 CPU profile of the whole process and writes it
// to $BENCH_CPU_PROF_DIR on exit: `--cpu-prof` itself is not allowed in NODE_OPTIONS, and the bench
// server helper spawns the node command line itself.
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector'
import { join } from 'node:path'

const dir = process.env.BENCH_CPU_PROF_DIR
if (dir) {
  const session = new Session()
  session.connect()
  session.post('Profiler.enable')
  session.post('Profiler.setSamplingInterval', { interval: 200 })
  session.post('Profiler.start')
  // same-thread inspector sessions answer synchronously, so this works inside 'exit'
  process.on('exit', () => {
    session.post('Profiler.stop', (err, res) => {
      if (!err) writeFileSync(join(dir, `server-${process.pid}.cpuprofile`), JSON.stringify(res.profile))
    })
  })
}
