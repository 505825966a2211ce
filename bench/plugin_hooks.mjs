// Times the kg-brain OpenCode plugin's hooks as OpenCode calls them, against a running service:
// run by bench/plugin_hooks.py, which prints and saves the summary.
// argv: plugin file, settings JSON, workspace folder, rounds, known failing command, user
// messages JSON ({relevant: [...], unrelated: [...]}).
import { pathToFileURL } from "node:url"

const [pluginFile, settings, directory, roundsText, failing, messagesText] = process.argv.slice(2)
const messages = JSON.parse(messagesText)
const { KgBrain } = await import(pathToFileURL(pluginFile).href)
const config = JSON.parse(settings)
const rounds = Number(roundsText)
const hooks = await KgBrain({ client: null, directory }, undefined, config)
const samples = {}

async function timed(name, run) {
  const began = performance.now()
  const bytes = await run()
  ;(samples[name] ??= []).push({ ms: performance.now() - began, bytes })
}

const systemBytes = (output) => Buffer.byteLength(output.system.join("\n"))
for (let i = 0; i < rounds; i++) {
  const sessionID = `bench-${i}`
  await timed("health_round_trip", async () => {
    await (await fetch(`${config.url}/health`, { headers: {
      Authorization: `Bearer ${process.env.KG_BRAIN_HTTP_TOKEN}` } })).text()
    return 0
  })
  let startBytes = 0
  for (const name of ["system_first_call", "system_cached"]) {
    const output = { system: [] }
    await timed(name, async () => {
      await hooks["experimental.chat.system.transform"]({ sessionID }, output)
      startBytes = systemBytes(output)
      return startBytes
    })
  }
  const relevant = messages.relevant[i % messages.relevant.length]
  const unrelated = messages.unrelated[i % messages.unrelated.length]
  for (const [name, text] of [["recall_relevant", relevant], ["recall_unrelated", unrelated],
                              ["recall_repeated", relevant]]) {
    await timed("chat_message", async () => {
      await hooks["chat.message"]({ sessionID }, { parts: [{ type: "text", text }] })
      return 0
    })
    const output = { system: [] }
    await timed(name, async () => {
      await hooks["experimental.chat.system.transform"]({ sessionID }, output)
      return systemBytes(output) - startBytes - (output.system.length > 1 ? 1 : 0)
    })
  }
  // before a run: a command that failed before (an equivalent spelling of it) is held, its
  // result the warning (the bytes); any other command goes through
  for (const [name, command] of [["bash_before_other", `ls -la src/module_${i}`],
                                 ["bash_before_known_failure", `cd ${directory} && ${failing} 2>&1`]]) {
    await timed(name, async () => {
      try {
        await hooks["tool.execute.before"]({ tool: "bash", sessionID, callID: `${name}-${i}` },
                                           { args: { command } })
        return 0
      } catch (held) {
        return Buffer.byteLength(held.message)
      }
    })
  }
  const succeeded = { output: "ok", metadata: { exit: 0 } }
  await timed("bash_after_success", async () => {
    await hooks["tool.execute.after"]({ tool: "bash", sessionID, callID: `s-${i}`,
                                        args: { command: `ls -la src/module_${i}` } }, succeeded)
    return Buffer.byteLength(succeeded.output) - 2
  })
  const output = { output: "boom", metadata: { exit: 1, output: "error: bench failure" } }
  await timed("bash_after_failure", async () => {
    await hooks["tool.execute.after"]({ tool: "bash", sessionID, callID: `f-${i}`,
                                        args: { command: "false --bench" } }, output)
    return 0
  })
}
process.stdout.write(JSON.stringify(samples))
