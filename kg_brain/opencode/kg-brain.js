// kg-brain memory for OpenCode, without the model having to ask: the project's handoff, decisions
// and past mistakes in the system context of a session's model calls; a failing bash command
// recorded as a mistake and the later success of an equivalent command as the fix; a command
// equivalent to one that failed in an earlier session held once, before it runs, with the warning
// and the known fix as its output (matched here, against the failed commands the start context
// listed: no request per command); previews of the stored notes relevant to each user
// message, in that turn's system context (each note once per session); a handoff written when the session goes idle;
// `/remember <text>` and `/dream [cluster ids]`.
//
// Shipped with kg-brain and installed by `kg-brain wire opencode` into .opencode/plugin/ (or the
// global config's plugin/ folder) with the modules it imports. It talks to the shared kg-brain
// service (POST /plugin/<action>, kg_brain/plugin_api.py) through kg-brain-service.mjs, which
// reads the settings and starts the service when nothing listens. Memory never blocks the
// session: a call that fails is logged once and the session goes on without it. OpenCode calls
// every export as a plugin: KgBrain is the only one.
import { commandKey, oneLine } from "./kg-brain-commands.mjs"
import { Memory, loadConfig } from "./kg-brain-service.mjs"

const EDIT_TOOLS = new Set(["edit", "write", "patch", "multiedit", "apply_patch"])
const OUTPUT_TAIL = 2000
const HELD = "kg-brain held this command once, before it ran, so that you read this first: it " +
  "has not run. Apply the fix if it is still needed, then run the command again: it will not " +
  "be held again in this session."

// What one session did, for the handoff and for matching a success to an earlier failure.
class Session {
  constructor() {
    this.context = null // the start context text; null: fetch it on the next model call
    this.pending = null // the start context's request under way
    this.ids = new Set() // notes this session has shown or written: never recalled again
    this.recall = null // this turn's relevant notes: a promise of their text ("" for none)
    this.requests = []
    this.edited = new Set()
    this.events = [] // "edited X", "ran `y` (exit n)", in order
    this.commands = []
    this.failures = new Map() // command key -> { zk_id, command, at: index in events }
    this.known = new Map() // command key -> warning with the known fix, from the start context
    this.warned = new Set() // command keys held once already in this session
    this.ran = new Set() // command keys run in this session: their outcome is known, never held
    this.commandTexts = new Set()
    this.activity = 0
    this.closedAt = 0
  }

  between(at) {
    return this.events.slice(at + 1)
  }
}

const COMMANDS = {
  remember: { description: "kg-brain: keep this in long-term memory", template: "$ARGUMENTS" },
  dream: { description: "kg-brain: list overlapping notes to merge; /dream CL-... merges those",
           template: "$ARGUMENTS" },
}

function dreamText(report, chosen) {
  if (!report) return "kg-brain memory is unavailable: nothing was consolidated. Tell the user."
  if (chosen.length) {
    const merged = (report.merged ?? []).map((m) => `${m.cluster_id} -> ${m.new_zk_id} ` +
      `(archived ${m.archived.join(", ")})`)
    return `kg-brain merged ${merged.length} group(s):\n${merged.join("\n") || "none"}\n` +
      "Report this to the user."
  }
  const groups = (report.clusters ?? []).map((c) => `- ${c.cluster_id}: ${c.titles.join(" | ")}` +
    ` (${c.reason})`)
  if (!groups.length) return "kg-brain found no overlapping notes to merge. Tell the user."
  return `kg-brain found these groups of overlapping notes (a dry run, nothing changed):\n` +
    `${groups.join("\n")}\nShow them to the user: \`/dream <cluster ids>\` merges the chosen ones.`
}

function replaceText(parts, text) {
  const part = parts.find((p) => p.type === "text")
  if (part) part.text = text
  else parts.push({ type: "text", text })
}

// `opencode run` passes an argument holding a space in double quotes (inner ones escaped).
const unquoted = (text) => {
  const quoted = /^"([\s\S]*)"$/.exec(text)
  return quoted ? quoted[1].replace(/\\"/g, '"') : text
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

  // One request per session (again after a write that changes it), begun as soon as the user's
  // message arrives so that the model call finds it done or nearly.
  function startContext(s) {
    if (s.context === null && !s.pending) {
      s.pending = memory.call("start", { budget_tokens: config.budget_tokens }).then((found) => {
        s.pending = null
        if (!found) return
        s.context = found.text ?? ""
        s.known = new Map() // newest first: the newest failure of equivalent ones speaks
        for (const [command, warning] of Object.entries(found.known ?? {})) {
          const key = commandKey(command, directory)
          if (!s.known.has(key)) s.known.set(key, warning)
        }
        for (const id of found.ids ?? []) s.ids.add(id)
      })
    }
    return s.pending
  }

  // Begun when the user's message arrives, after the start context (whose notes it leaves out).
  function recall(s, text) {
    s.recall = Promise.resolve(startContext(s)).then(() => memory.call("recall", {
      text, budget_tokens: config.recall_budget_tokens, shown: [...s.ids],
    })).then((found) => {
      for (const id of found?.ids ?? []) s.ids.add(id)
      return found?.text ?? ""
    })
  }

  // Before a command equivalent to one that failed in an earlier session runs: the first time in
  // a session, the command is held (OpenCode turns the error into the tool's result) so that the
  // model reads the warning and the known fix before anything runs; run again, it goes through.
  function bashStarting(s, args) {
    const key = commandKey(args?.command, directory)
    const warning = s.known.get(key)
    if (!warning || s.ran.has(key) || s.warned.has(key)) return
    s.warned.add(key)
    throw new Error(`${warning}\n${HELD}`)
  }

  async function bashFinished(s, input, output) {
    const command = input.args?.command ?? ""
    const key = commandKey(command, directory)
    const shown = oneLine(command).slice(0, 200)
    const status = output.metadata?.exit
    s.ran.add(key)
    s.events.push(`ran \`${shown}\` (exit ${status})`)
    s.commands.push(`\`${shown}\` (exit ${status})`)
    if (typeof status === "number" && status !== 0) {
      const text = String(output.metadata?.output ?? output.output ?? "").slice(-OUTPUT_TAIL)
      const recorded = await memory.call("failure", { command, exit: status, output: text }, true)
      if (recorded) {
        s.failures.set(key, { zk_id: recorded.zk_id, command: shown, at: s.events.length - 1 })
        s.ids.add(recorded.zk_id)
      }
    } else if (status === 0 && s.failures.has(key)) {
      const failed = s.failures.get(key)
      s.failures.delete(key)
      const fixed = await memory.call("resolution", {
        failure_zk_id: failed.zk_id, command, failed_command: failed.command,
        between: s.between(failed.at).slice(0, -1),
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

  async function command(name, argumentsText, s) {
    if (name === "remember" && !argumentsText) {
      return "kg-brain stored nothing: `/remember` needs the text to keep, as in `/remember the " +
        "staging database resets on Sundays`. Tell the user."
    }
    if (name === "remember") {
      const saved = await memory.call("remember", { text: argumentsText }, true)
      if (saved) s.context = null
      return saved
        ? `kg-brain stored this in long-term memory as ${saved.zk_id}: ${saved.title}` +
          `${saved.deduplicated ? ", reinforcing a note it already had" : ""}. Confirm briefly.`
        : "kg-brain memory is unavailable or refused the note: it was not stored. Tell the user."
    }
    const chosen = argumentsText.split(/[\s,]+/).filter(Boolean)
    const report = await memory.call("dream", { apply: chosen }, true)
    if (report && chosen.length) s.context = null
    return dreamText(report, chosen)
  }

  // `/remember ...` or `/dream ...` sent as a message (`opencode run "/remember ..."` sends it so,
  // where the TUI runs the command): run as the command, its answer in place of the message.
  async function typedCommand(s, parts, text) {
    const typed = /^\/(\w+)(?:\s+([\s\S]*))?$/.exec(unquoted(text))
    if (!typed || !Object.hasOwn(COMMANDS, typed[1])) return false
    const answer = await command(typed[1], (typed[2] ?? "").trim(), s)
    replaceText(parts, answer)
    s.commandTexts.add(answer)
    return true
  }

  return {
    config: async (cfg) => {
      cfg.command ??= {}
      for (const [name, spec] of Object.entries(COMMANDS)) cfg.command[name] ??= spec
    },
    "command.execute.before": async (input, output) => {
      if (!(input.command in COMMANDS)) return
      const s = session(input.sessionID)
      const args = unquoted(String(input.arguments ?? "").trim())
      const text = await command(input.command, args, s)
      replaceText(output.parts, text)
      s.commandTexts.add(text) // the plugin's own answer, not a request of the user
    },
    "experimental.chat.system.transform": async (input, output) => {
      if (!input.sessionID) return
      const s = session(input.sessionID)
      await startContext(s)
      if (s.context) output.system.push(s.context)
      const relevant = await s.recall
      if (relevant) output.system.push(relevant)
    },
    "chat.message": async (input, output) => {
      const text = userText(output.parts)
      const s = session(input.sessionID)
      if (!text || s.commandTexts.has(text) || await typedCommand(s, output.parts, text)) return
      s.requests.push(text.slice(0, 300))
      s.activity += 1
      startContext(s)
      recall(s, text)
    },
    "tool.execute.before": async (input, output) => {
      if (input.tool === "bash") bashStarting(session(input.sessionID), output.args)
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
