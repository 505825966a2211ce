// kg-brain memory for OpenCode, without the model having to ask: the project's handoff, decisions
// and past mistakes in the system context of a session's model calls; a failing bash command
// recorded as a mistake and its later success as the fix; the known fix shown when a command
// that failed before runs again; a handoff written when the session goes idle.
//
// Shipped with kg-brain and installed by `kg-brain wire opencode` into .opencode/plugin/ (or the
// global config's plugin/ folder); its settings are ../kg-brain.json beside that folder. It talks
// to the shared kg-brain service (POST /plugin/<action>, kg_brain/plugin_api.py) and starts it
// when nothing answers. Memory never blocks the session: a call that fails is logged once and the
// session goes on without it. OpenCode calls every export as a plugin: KgBrain is the only one.
import { existsSync, readFileSync } from "node:fs"
import { spawn } from "node:child_process"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const CONFIG_FILE = join(dirname(fileURLToPath(import.meta.url)), "..", "kg-brain.json")
const DEFAULTS = {
  url: "http://127.0.0.1:8765",
  token_file: "",
  start: [],
  start_env: {},
  budget_tokens: 2000,
  read_timeout_ms: 1500,
  write_timeout_ms: 8000,
}
const EDIT_TOOLS = new Set(["edit", "write", "patch", "multiedit", "apply_patch"])
const OUTPUT_TAIL = 2000

function loadConfig(file = CONFIG_FILE) {
  try {
    return { ...DEFAULTS, ...JSON.parse(readFileSync(file, "utf8")) }
  } catch {
    return { ...DEFAULTS }
  }
}

// Two runs are the same command when they differ only in whitespace (as on the server).
const commandKey = (command) => String(command ?? "").replace(/\s+/g, " ").trim()

// `{env:NAME}` (OpenCode's reference syntax, as in opencode.json) read from this environment.
const expand = (value) => String(value).replace(/\{env:([A-Za-z_][A-Za-z0-9_]*)\}/g,
  (_, name) => process.env[name] ?? "")

class Memory {
  constructor(config, directory, log) {
    this.config = config
    this.directory = directory
    this.log = log
    this.warned = false
    this.started = false
  }

  headers() {
    const headers = { "Content-Type": "application/json" }
    let token = process.env.KG_BRAIN_HTTP_TOKEN
    if (!token && this.config.token_file && existsSync(this.config.token_file)) {
      token = readFileSync(this.config.token_file, "utf8").trim()
    }
    if (token) headers.Authorization = `Bearer ${token}`
    return headers
  }

  // The action's answer, or null when memory did not answer (logged once, never thrown).
  async call(action, body, write = false) {
    const timeout = write ? this.config.write_timeout_ms : this.config.read_timeout_ms
    try {
      const reply = await fetch(`${this.config.url}/plugin/${action}`, {
        method: "POST", headers: this.headers(), signal: AbortSignal.timeout(timeout),
        body: JSON.stringify({ directory: this.directory, ...body }),
      })
      const data = await reply.json().catch(() => ({}))
      if (reply.ok) return data
      this.warn(`${action} refused (HTTP ${reply.status}): ${data.error ?? ""}`)
    } catch (error) {
      this.unreachable(error)
    }
    return null
  }

  warn(message) {
    if (this.warned) return
    this.warned = true
    this.log("warn", `kg-brain memory unavailable, the session goes on without it: ${message}`)
  }

  unreachable(error) {
    this.warn(`${this.config.url} did not answer (${error?.name ?? error})`)
    const [command, ...args] = this.config.start ?? []
    if (this.started || !command) return
    this.started = true
    const env = { ...process.env }
    for (const [name, value] of Object.entries(this.config.start_env ?? {})) env[name] = expand(value)
    try {
      spawn(command, args, { detached: true, stdio: "ignore", env }).unref()
      this.log("info", `kg-brain: started the shared service (${command} ${args.join(" ")})`)
    } catch (failure) {
      this.log("warn", `kg-brain: could not start the service: ${failure}`)
    }
  }
}

// What one session did, for the handoff and for matching a success to an earlier failure.
class Session {
  constructor() {
    this.context = null // the start context text; null: fetch it on the next model call
    this.ids = new Set()
    this.requests = []
    this.edited = new Set()
    this.events = [] // "edited X", "ran `y` (exit n)", in order
    this.commands = []
    this.failures = new Map() // command key -> { zk_id, command, at: index in events }
    this.warnings = new Map() // callID -> preflight warning for that bash run
    this.activity = 0
    this.closedAt = 0
  }

  between(at) {
    return this.events.slice(at + 1)
  }
}

const userText = (parts) => (parts ?? []).filter((p) => p.type === "text" && !p.synthetic)
  .map((p) => p.text).join("\n").trim()

export const KgBrain = async ({ client, directory }, _options, config = loadConfig()) => {
  const log = (level, message) => client?.app?.log?.({ body: { service: "kg-brain", level, message } })
    ?.catch?.(() => {})
  const memory = new Memory(config, directory, log)
  const sessions = new Map()
  const session = (id) => {
    if (!sessions.has(id)) sessions.set(id, new Session())
    return sessions.get(id)
  }

  async function startContext(s) {
    if (s.context === null) {
      const found = await memory.call("start", { budget_tokens: config.budget_tokens })
      if (!found) return ""
      s.context = found.text ?? ""
      for (const id of found.ids ?? []) s.ids.add(id)
    }
    return s.context
  }

  async function bashFinished(s, input, output) {
    const command = input.args?.command ?? ""
    const key = commandKey(command)
    const status = output.metadata?.exit
    s.events.push(`ran \`${key.slice(0, 200)}\` (exit ${status})`)
    s.commands.push(`\`${key.slice(0, 200)}\` (exit ${status})`)
    const warning = s.warnings.get(input.callID)
    if (warning) {
      s.warnings.delete(input.callID)
      output.output = `${output.output ?? ""}\n\n${warning}`
    }
    if (typeof status === "number" && status !== 0) {
      const text = String(output.metadata?.output ?? output.output ?? "").slice(-OUTPUT_TAIL)
      const recorded = await memory.call("failure", { command, exit: status, output: text }, true)
      if (recorded) {
        s.failures.set(key, { zk_id: recorded.zk_id, command: key, at: s.events.length - 1 })
        s.ids.add(recorded.zk_id)
      }
    } else if (status === 0 && s.failures.has(key)) {
      const failed = s.failures.get(key)
      s.failures.delete(key)
      const fixed = await memory.call("resolution", {
        failure_zk_id: failed.zk_id, command, between: s.between(failed.at).slice(0, -1),
      }, true)
      if (fixed) {
        s.ids.add(fixed.fix_zk_id)
        s.context = null // its mistakes and fixes changed
      }
    }
  }

  async function close(id, s) {
    if (s.activity === s.closedAt || s.requests.length === 0) return
    s.closedAt = s.activity
    const closed = await memory.call("close", {
      requests: s.requests, edited: [...s.edited], commands: s.commands,
      open_failures: [...s.failures.values()].map((f) => `\`${f.command}\` (${f.zk_id})`),
    }, true)
    if (closed) s.ids.add(closed.summary_zk_id)
  }

  return {
    "experimental.chat.system.transform": async (input, output) => {
      if (!input.sessionID) return
      const text = await startContext(session(input.sessionID))
      if (text) output.system.push(text)
    },
    "chat.message": async (input, output) => {
      const text = userText(output.parts)
      if (!text) return
      const s = session(input.sessionID)
      s.requests.push(text.slice(0, 300))
      s.activity += 1
    },
    "tool.execute.before": async (input, output) => {
      if (input.tool !== "bash" || !output.args?.command) return
      const found = await memory.call("preflight", { command: output.args.command })
      if (found?.warning) session(input.sessionID).warnings.set(input.callID, found.warning)
    },
    "tool.execute.after": async (input, output) => {
      const s = session(input.sessionID)
      s.activity += 1
      if (input.tool === "bash") return bashFinished(s, input, output)
      const file = input.args?.filePath ?? input.args?.path
      if (EDIT_TOOLS.has(input.tool) && file) {
        s.edited.add(file)
        s.events.push(`edited ${file}`)
      }
    },
    "experimental.session.compacting": async (input, output) => {
      const s = session(input.sessionID)
      const open = [...s.failures.values()].map((f) => `\`${f.command}\` (${f.zk_id})`)
      output.context.push([
        "kg-brain memory of this session (keep these ids; recall(zk_ids) reads them):",
        `- notes: ${[...s.ids].join(", ") || "none"}`,
        `- requests: ${s.requests.join(" | ") || "none"}`,
        `- files edited: ${[...s.edited].join(", ") || "none"}`,
        `- still failing: ${open.join(", ") || "nothing"}`,
      ].join("\n"))
    },
    event: async ({ event }) => {
      if (event.type === "session.idle") {
        const id = event.properties?.sessionID
        if (id && sessions.has(id)) await close(id, sessions.get(id))
      }
    },
  }
}
