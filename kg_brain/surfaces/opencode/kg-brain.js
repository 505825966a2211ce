// kg-brain memory for OpenCode, without the model having to ask: the project's handoff, decisions
// and past mistakes in the system context of a session's model calls (fixed for the session, so
// the prompt cache holds); previews of the stored notes relevant to each user message, in that
// turn's system context (each note once per session); a failing bash command whose output shows
// an error recorded as a mistake, and the later pass of an equivalent command after changes as
// its fix; a command whose last run in the project failed with a known fix held once, before it
// runs, with the warning and the fix as its output (matched here, against the commands the start
// answer listed, read again at each user message: no request per command); the session's handoff
// brought up to date at each idle, and answered before OpenCode exits;
// `/remember <text>` and `/dream [cluster ids]`.
//
// This file is the glue between OpenCode's hooks and the service: what a session did is kept on
// the service per OpenCode session (kg_brain/surfaces/plugin_session.py), so every process serving the
// session (`opencode run --continue`, the TUI's server) shares it, and a subagent's session
// reports into its parent's. Here only what happened since the last report is buffered.
//
// Shipped with kg-brain and installed by `kg-brain wire opencode` into .opencode/plugin/ (or the
// global config's plugin/ folder) with the modules it imports. It talks to the shared kg-brain
// service (POST /plugin/<action>, kg_brain/surfaces/plugin_api.py) through kg-brain-service.mjs, which
// reads the settings and starts the service when nothing listens. Memory never blocks the
// session: a call that fails is logged once and the session goes on without it. OpenCode calls
// every export as a plugin: KgBrain is the only one.
import { commandKey, oneLine } from "./kg-brain-commands.mjs"
import { Memory, loadConfig } from "./kg-brain-service.mjs"

const EDIT_TOOLS = new Set(["edit", "write", "patch", "multiedit", "apply_patch"])
const OUTPUT_TAIL = 16000 // the output's last characters the service judges (it keeps 2000 in the note)
const SAID = 300 // characters of the agent's words kept while a failure is open
const HELD = "kg-brain held this command once, before it ran, so that you read this first: it " +
  "has not run. Apply the fix if it is still needed, then run the command again: it will not " +
  "be held again in this session."
// OpenCode's title request (its `title` agent): it gets no memory.
const TITLE_PROMPT = /^You are a title generator/

const report = () => ({ requests: [], edited: [], events: [], ran: [], held: [] })

// One OpenCode session (a subagent's reports into its parent's): what this process learnt from
// the service and what it saw since its last report.
class Session {
  constructor(id) {
    this.id = id
    this.context = null // the start context text; null: fetch it on the next model call
    this.stale = true // the commands' last outcomes (`known`) to read again with it
    this.pending = null // the start context's request under way
    this.ids = new Set() // notes this session has shown in full or written: never recalled again
    this.recalls = new Map() // session id -> this turn's relevant notes (a promise of text)
    this.known = new Map() // command key -> warning ("" when no fix is known: never held)
    this.open = new Map() // command key -> mistake id: failures open in this session
    this.ran = new Set() // command keys run in this session: their outcome is known, never held
    this.warned = new Set() // command keys held once already in this session
    this.report = report() // what happened since the last report to the service
    this.commandTexts = new Set()
    this.activity = 0
    this.closedAt = 0
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
  // `"capture_commands": false` in the workspace's kg-brain.json: no bash command, output or
  // outcome leaves the session (no mistakes, fixes or holds; the handoff lists no commands).
  const capture = config.capture_commands !== false
  const sessions = new Map()
  const parents = new Map() // session id -> its parent's id ("" for a session of its own)
  const session = (id) => {
    if (!sessions.has(id)) sessions.set(id, new Session(id))
    return sessions.get(id)
  }

  // The session a hook's session reports into: its own, or its parent's for a subagent's.
  async function root(id) {
    if (!parents.has(id)) {
      const found = await client?.session?.get?.({ path: { id } })?.catch?.(() => null)
      parents.set(id, found?.data?.parentID ?? "")
    }
    const parent = parents.get(id)
    return parent ? root(parent) : session(id)
  }

  // A write to the service with what the session saw since its last report; kept for the next
  // one when memory did not answer.
  async function send(s, action, body) {
    const sent = s.report
    s.report = report()
    const answer = await memory.call(action, { session_id: s.id, ...sent, ...body }, true)
    if (!answer) for (const [name, values] of Object.entries(sent)) s.report[name].unshift(...values)
    return answer
  }

  // The start context, one text per session (the service answers every process of the session
  // the same; a process keeps the first it got), and the commands whose last run in the project
  // failed, read again at each user message: in a process serving many turns (`opencode serve`)
  // another session may have run them since. Begun as soon as the user's message arrives so that
  // the model call finds it done or nearly.
  function startContext(s) {
    if ((s.context === null || s.stale) && !s.pending) {
      s.pending = memory.call("start", { session_id: s.id, budget_tokens: config.budget_tokens })
        .then((found) => {
          s.pending = null
          if (!found) return
          s.stale = false
          s.context ??= found.text ?? ""
          s.known = new Map(Object.entries(found.known ?? {}))
          s.open = new Map(Object.entries(found.open ?? {}))
          for (const id of found.ids ?? []) s.ids.add(id)
        })
    }
    return s.pending
  }

  // Begun when the user's message arrives, after the session's first start context (whose notes
  // shown in full it leaves out; one named only by its title can still come with its body).
  function recall(s, id, text) {
    const first = s.context === null ? startContext(s) : null
    s.recalls.set(id, Promise.resolve(first).then(() => memory.call("recall", {
      text, budget_tokens: config.recall_budget_tokens, shown: [...s.ids], session_id: s.id,
    })).then((found) => {
      for (const shown of found?.ids ?? []) s.ids.add(shown)
      return found?.text ?? ""
    }))
  }

  // Before a command whose last run in the project failed and whose fix is known: the first
  // time in the session, the command is held (OpenCode turns the error into the tool's result)
  // so that the model reads the warning and the fix before anything runs; run again, it goes.
  function bashStarting(s, args) {
    if (!capture) return
    const key = commandKey(args?.command, directory)
    const warning = s.known.get(key)
    if (!warning || s.ran.has(key) || s.warned.has(key)) return
    s.warned.add(key)
    s.report.held.push(key)
    throw new Error(`${warning}\n${HELD}`)
  }

  async function bashFinished(s, input, output) {
    if (!capture) return
    const command = input.args?.command ?? ""
    const key = commandKey(command, directory)
    const status = output.metadata?.exit
    s.ran.add(key)
    s.report.ran.push(key)
    s.report.events.push(`ran \`${oneLine(command).slice(0, 200)}\` (exit ${status})`)
    if (typeof status === "number" && status !== 0) {
      const text = String(output.metadata?.output ?? output.output ?? "").slice(-OUTPUT_TAIL)
      const recorded = await send(s, "failure", { command, key, exit: status, output: text })
      if (recorded?.zk_id) {
        s.open.set(key, recorded.zk_id)
        s.ids.add(recorded.zk_id)
      }
    } else if (status === 0 && (s.open.has(key) || s.known.has(key))) {
      s.open.delete(key)
      s.known.delete(key)
      const passed = await send(s, "passed", { command, key })
      if (passed?.fix_zk_id) s.ids.add(passed.fix_zk_id)
    }
  }

  // OpenCode does not wait for an event hook before it exits (`opencode run` ends right after the
  // idle event): the handoff's write is kept here until it is answered, and `dispose`, which
  // OpenCode awaits before exiting, waits for it.
  const closing = new Set()
  function close(s) {
    if (s.activity === s.closedAt) return Promise.resolve()
    s.closedAt = s.activity
    const write = send(s, "close", {}).then((closed) => {
      if (closed?.summary_zk_id) s.ids.add(closed.summary_zk_id)
    }).finally(() => closing.delete(write))
    closing.add(write)
    return write
  }

  async function command(name, argumentsText, s) {
    if (name === "remember" && !argumentsText) {
      return "kg-brain stored nothing: `/remember` needs the text to keep, as in `/remember the " +
        "staging database resets on Sundays`. Tell the user."
    }
    if (name === "remember") {
      const saved = await memory.call("remember", { text: argumentsText }, true)
      return saved
        ? `kg-brain stored this in long-term memory as ${saved.zk_id}: ${saved.title}` +
          `${saved.deduplicated ? ", reinforcing a note it already had" : ""}. Confirm briefly.`
        : "kg-brain memory is unavailable or refused the note: it was not stored. Tell the user."
    }
    const chosen = argumentsText.split(/[\s,]+/).filter(Boolean)
    return dreamText(await memory.call("dream", { apply: chosen }, true), chosen)
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
      const s = await root(input.sessionID)
      const args = unquoted(String(input.arguments ?? "").trim())
      const text = await command(input.command, args, s)
      replaceText(output.parts, text)
      s.commandTexts.add(text) // the plugin's own answer, not a request of the user
    },
    "experimental.chat.system.transform": async (input, output) => {
      if (!input.sessionID || TITLE_PROMPT.test(output.system?.[0] ?? "")) return
      const s = await root(input.sessionID)
      await startContext(s)
      if (s.context) output.system.push(s.context)
      const relevant = await s.recalls.get(input.sessionID)
      if (relevant) output.system.push(relevant)
    },
    "chat.message": async (input, output) => {
      const text = userText(output.parts)
      const s = await root(input.sessionID)
      if (!text || s.commandTexts.has(text) || await typedCommand(s, output.parts, text)) return
      if (s.id === input.sessionID) s.report.requests.push(text.slice(0, 300)) // not a subagent's
      s.activity += 1
      s.stale = true
      startContext(s)
      recall(s, input.sessionID, text)
    },
    "tool.execute.before": async (input, output) => {
      if (input.tool === "bash") bashStarting(await root(input.sessionID), output.args)
    },
    "tool.execute.after": async (input, output) => {
      const s = await root(input.sessionID)
      s.activity += 1
      if (input.tool === "bash") return bashFinished(s, input, output)
      const file = input.args?.filePath ?? input.args?.path
      if (EDIT_TOOLS.has(input.tool) && file) {
        s.report.edited.push(file)
        s.report.events.push(`edited ${file}`)
      }
    },
    // The agent's words while a failure is open: what it says fixed it goes with the fix.
    "experimental.text.complete": async (input, output) => {
      const s = await root(input.sessionID)
      const said = oneLine(output.text).slice(0, SAID)
      if (s.open.size && said) s.report.events.push(`said: ${said}`)
    },
    "experimental.session.compacting": async (input, output) => {
      const s = await root(input.sessionID)
      const open = [...s.open.values()]
      output.context.push([
        "kg-brain memory of this session (keep these ids; recall(zk_ids) reads them):",
        `- notes: ${[...s.ids].join(", ") || "none"}`,
        `- still failing: ${open.join(", ") || "nothing"}`,
      ].join("\n"))
    },
    // Before OpenCode exits (the end of `opencode run`, `opencode serve` stopped): the handoffs
    // under way answered, and a session with work since its last handoff closed.
    dispose: async () => {
      await Promise.allSettled([...closing, ...[...sessions.values()].map(close)])
    },
    event: async ({ event }) => {
      const info = event.properties?.info
      if (event.type === "session.created" && info?.id) parents.set(info.id, info.parentID ?? "")
      if (event.type === "session.idle") {
        const id = event.properties?.sessionID
        if (id && sessions.has(id) && parents.get(id) === "") await close(sessions.get(id))
      }
    },
  }
}
