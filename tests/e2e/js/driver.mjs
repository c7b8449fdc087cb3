// The line protocol shared by the JavaScript client drivers (tests/e2e/test_js_clients.py):
// one JSON command per stdin line, one JSON answer per stdout line, and a buffer of the
// live events (new / edit / delete) the client saw, which `wait` consumes.
import { createInterface } from 'node:readline'

// stdout carries the protocol only: whatever the libraries print goes to stderr (the log).
for (const name of ['log', 'info', 'debug', 'warn']) console[name] = console.error

export function serve(ops) {
    const events = []
    const waiters = []

    function matches(ev, want) {
        if (ev.kind !== want.kind) return false
        if (want.text !== undefined && ev.text !== want.text) return false
        if (want.ids !== undefined && !want.ids.every(id => ev.ids.includes(id))) return false
        return true
    }

    function push(ev) {
        events.push(ev)
        for (const w of [...waiters]) {
            const i = events.findIndex(e => matches(e, w.want))
            if (i >= 0) {
                waiters.splice(waiters.indexOf(w), 1)
                clearTimeout(w.timer)
                w.resolve(events.splice(i, 1)[0])
            }
        }
    }

    function wait(want) {
        const i = events.findIndex(e => matches(e, want))
        if (i >= 0) return Promise.resolve(events.splice(i, 1)[0])
        return new Promise((resolve, reject) => {
            const w = { want, resolve }
            w.timer = setTimeout(() => {
                waiters.splice(waiters.indexOf(w), 1)
                reject(new Error(`no ${JSON.stringify(want)} event within ${want.timeout_s ?? 10} s; saw ${JSON.stringify(events)}`))
            }, (want.timeout_s ?? 10) * 1000)
            waiters.push(w)
        })
    }

    const all = { ...ops, wait: (args) => wait(args) }
    const out = (obj) => process.stdout.write(`${JSON.stringify(obj, (_, v) => (typeof v === 'bigint' ? v.toString() : v))}\n`)
    const rl = createInterface({ input: process.stdin })
    let chain = Promise.resolve()
    rl.on('line', (line) => {
        chain = chain.then(async () => {
            const cmd = JSON.parse(line)
            const op = all[cmd.op]
            try {
                if (!op) throw new Error(`unknown op ${cmd.op}`)
                out({ ok: true, result: (await op(cmd)) ?? null })
            } catch (e) {
                out({ ok: false, error: String(e?.stack ?? e) })
            }
            if (cmd.op === 'quit') process.exit(0)
        })
    })
    rl.on('close', () => chain.then(() => process.exit(0)))
    return push
}
