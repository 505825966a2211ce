// How the kg-brain OpenCode plugin (kg-brain.js) reaches the shared kg-brain service: its settings,
// its requests, the circuit breaker and the start of the service. Installed beside the plugin;
// OpenCode does not load an .mjs file as a plugin.
//
// Settings: ../kg-brain.json beside the plugin folder (the same on every machine, so a workspace's
// can be committed) over this machine's, in kg-brain's user folder (kg_brain/surfaces/machine.py). Memory
// never blocks the session: a call that fails is logged once (one warning per process) and
// answered null; one the service dropped unanswered is first sent once more. Nothing listening: the service is started once (`kg-brain service start`, which
// starts one however many clients race and logs to the service log). A service that accepts and
// does not answer in time costs one wait: no call waits for it again until its /health answers.
//
// The shared service is reached through its Unix socket in kg-brain's private state folder
// (`socket`, kg_brain/surfaces/service.py), never through its port: any account can listen on a free port,
// only this user can reach into that folder, so the token goes to this user's service and nobody
// else. A workspace wired with `--url` names its service's address instead (and no socket).
import { closeSync, existsSync, openSync, readFileSync } from "node:fs"
import { spawn } from "node:child_process"
import http from "node:http"
import https from "node:https"
import { homedir } from "node:os"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const CONFIG_FILE = join(dirname(fileURLToPath(import.meta.url)), "..", "kg-brain.json")
// This machine's settings, by the rule kg_brain/surfaces/machine.py writes them by.
const MACHINE_FILE = join(process.env.XDG_CONFIG_HOME || join(homedir(), ".config"), "kg-brain",
  "opencode-plugin.json")
const RECHECK_MAX_MS = 300000 // the longest wait between two /health checks of a hung service
// Nothing listens (Bun, Node; a socket file missing or left by a service that died).
const REFUSED = new Set(["ConnectionRefused", "ECONNREFUSED", "ENOENT", "FailedToOpenSocket"])
// The service closed the connection as the request went out (an idle keep-alive connection it let
// go): no answer, and nothing done, so the request is sent once more.
const DROPPED = new Set(["ECONNRESET", "EPIPE"])
const PORT_HELD = 98 // `kg-brain service start`: the port is held by a program that is not kg-brain
const DEFAULTS = {
  url: "http://127.0.0.1:8765",
  socket: "",
  token_file: "",
  start: [],
  start_env: {},
  budget_tokens: 2000,
  recall_budget_tokens: 600,
  read_timeout_ms: 1500,
  write_timeout_ms: 8000,
  recheck_ms: 2000, // a service that did not answer: /health asked after this, doubled each time
}

function readJson(file) {
  try {
    return JSON.parse(readFileSync(file, "utf8"))
  } catch {
    return null
  }
}

// The workspace's settings over this machine's; `wired`: this machine has its part.
export function loadConfig(file = CONFIG_FILE, machineFile = MACHINE_FILE) {
  const machine = readJson(machineFile)
  return { ...DEFAULTS, ...machine, ...readJson(file), wired: machine !== null }
}

// `{env:NAME}` (OpenCode's reference syntax, as in opencode.json) read from this environment.
const expand = (value) => String(value).replace(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g,
  (_, name) => process.env[name] ?? "")

export class Memory {
  constructor(config, directory, log) {
    this.config = config
    this.directory = directory
    this.log = log
    this.warned = false
    this.started = false // a start was launched and the service has not answered since
    this.starting = false // that start's command still runs: a refused call is no news
    this.down = false // timed out: no call waits for it until its /health answers
    this.recheckMs = 0
  }

  // Where requests go: the service's socket, else the workspace's `url`.
  where() {
    return this.config.socket || this.config.url
  }

  headers(host) {
    const headers = { "Content-Type": "application/json", Host: host }
    let token = process.env.KG_BRAIN_HTTP_TOKEN
    if (!token && this.config.token_file && existsSync(this.config.token_file)) {
      token = readFileSync(this.config.token_file, "utf8").trim()
    }
    if (token) headers.Authorization = `Bearer ${token}`
    return headers
  }

  // The action's answer, or null when memory did not answer (logged once, never thrown).
  async call(action, body, write = false) {
    if (this.down) return null
    const timeout = write ? this.config.write_timeout_ms : this.config.read_timeout_ms
    try {
      const reply = await this.resent(`/plugin/${action}`, timeout,
        { directory: this.directory, ...body })
      this.started = false
      this.recheckMs = 0
      if (reply.ok) return reply.data
      this.warn(`${action} refused (HTTP ${reply.status}): ${reply.data?.error ?? ""}`)
    } catch (error) {
      this.failed(error, timeout)
    }
    return null
  }

  // `send`, once more on a new connection when the service dropped the first unanswered.
  async resent(path, timeout, body) {
    try {
      return await this.send(path, timeout, body)
    } catch (error) {
      if (!DROPPED.has(error?.code)) throw error
      return this.send(path, timeout, body)
    }
  }

  // One request (a POST of `body`, else a GET): `{ ok, status, data }` (data: the JSON answer,
  // else {}); rejects with the connection's error, or a TimeoutError after `timeout` ms.
  send(path, timeout, body) {
    const base = new URL(this.config.url)
    const socket = this.config.socket
    const target = socket ? { socketPath: socket }
      : { protocol: base.protocol, hostname: base.hostname, port: base.port }
    const client = !socket && base.protocol === "https:" ? https : http
    return new Promise((resolve, reject) => {
      const request = client.request({ ...target, path, method: body ? "POST" : "GET",
        headers: this.headers(base.host) }, (reply) => {
        let text = ""
        reply.setEncoding("utf8")
        reply.on("data", (chunk) => { text += chunk })
        reply.on("error", reject)
        reply.on("end", () => {
          clearTimeout(timer)
          let data = {}
          try { data = JSON.parse(text) } catch {}
          resolve({ ok: reply.statusCode >= 200 && reply.statusCode < 300,
            status: reply.statusCode, data })
        })
      })
      const timer = setTimeout(() => { // rejects itself: Bun's destroy(error) emits no error
        reject(Object.assign(new Error(`no answer within ${timeout} ms`), { name: "TimeoutError" }))
        request.destroy()
      }, timeout)
      timer.unref?.()
      request.on("error", (error) => {
        clearTimeout(timer)
        reject(error)
      })
      request.end(body ? JSON.stringify(body) : undefined)
    })
  }

  warn(message) {
    if (this.warned) return
    this.warned = true
    const unwired = this.config.wired === false ? `; kg-brain is not wired on this machine (no ` +
      `${MACHINE_FILE}): install it and run \`kg-brain wire opencode\` in this workspace` : ""
    this.log("warn", `kg-brain memory unavailable, the session goes on without it: ${message}` +
      unwired)
  }

  failed(error, timeout) {
    if (error?.name === "TimeoutError") return this.trip(timeout)
    const code = error?.cause?.code ?? error?.code
    if (REFUSED.has(code) && (this.starting || this.start())) return
    this.warn(`${this.where()} did not answer (${code ?? error?.name ?? error})`)
  }

  // The circuit breaker: a service that accepts and does not answer in time costs one wait; then
  // no call waits for it until its /health answers (asked in the background, less and less often).
  trip(timeout) {
    if (this.down) return
    this.down = true
    this.recheckMs = Math.min(Math.max(this.recheckMs * 2, this.config.recheck_ms), RECHECK_MAX_MS)
    this.warn(`${this.where()} accepted but did not answer within ${timeout} ms; memory is ` +
      "off until it answers")
    this.recheckLater()
  }

  recheckLater() {
    setTimeout(() => this.recheck(), this.recheckMs).unref?.()
  }

  async recheck() {
    try {
      const reply = await this.send("/health", this.config.read_timeout_ms)
      if (reply.ok) {
        this.down = false
        this.log("info", `kg-brain: ${this.where()} answers again`)
        return
      }
    } catch {}
    this.recheckMs = Math.min(this.recheckMs * 2, RECHECK_MAX_MS)
    this.recheckLater()
  }

  // Nothing listens: start the shared service once (`kg-brain service start`: one service
  // however many clients start it, logging to the service log). True when a start was launched;
  // a start command that cannot run (an interpreter moved or missing) is one warning, and so is
  // a port held by a program that is not kg-brain (the start's status says so).
  start() {
    const [command, ...args] = this.config.start ?? []
    if (this.started || !command) return false
    this.started = true
    this.starting = true
    const env = { ...process.env }
    for (const [name, value] of Object.entries(this.config.start_env ?? {})) {
      env[name] = expand(value)
    }
    const out = this.openLog()
    try {
      const child = spawn(command, args, { detached: true, stdio: ["ignore", out, out], env })
      child.on("error", (failure) => {
        this.starting = false
        this.warn(`could not start the kg-brain service (${command}: ${failure.code ?? failure}` +
          "); run `kg-brain wire opencode` on this machine")
      })
      child.on("spawn", () => this.log("info", `kg-brain: starting the shared service ` +
        `(${command} ${args.join(" ")}; log: ${this.config.log_file || "none"})`))
      child.on("exit", (status) => {
        this.starting = false
        if (status === PORT_HELD) this.warn(`port ${new URL(this.config.url).port} is held by ` +
          "a program that is not your kg-brain service: it was sent nothing, and memory is off " +
          `(see ${this.config.log_file || "`kg-brain service start`"})`)
      })
      child.unref()
    } catch (failure) {
      this.warn(`could not start the kg-brain service (${command}: ${failure})`)
    } finally {
      if (typeof out === "number") closeSync(out)
    }
    return true
  }

  openLog() {
    try {
      return this.config.log_file ? openSync(this.config.log_file, "a", 0o600) : "ignore"
    } catch {
      return "ignore"
    }
  }
}
