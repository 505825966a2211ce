// Which bash runs the kg-brain OpenCode plugin (kg-brain.js, beside this file) takes for the same
// command: a failure is resolved by the later success of an equivalent run, and a run equivalent
// to a command that failed in an earlier session is held once with the known fix. OpenCode loads
// plugin/*.js and *.ts as plugins, never this .mjs file: kg-brain.js imports it.
//
// Two bash runs are "the same or an equivalent command" when they run the same programs on the
// same targets. The key of a command drops only what changes how it is run or shown, never what
// it runs:
// - quoting and spacing: 'a b', "a b" and a\ b are one word;
// - leading variable assignments and wrappers that run the rest unchanged, with their own
//   options (FOO=1, env, time, command, nohup, sudo, nice, `timeout 60`, a shell running a
//   script file (`bash -x deploy.sh` is `./deploy.sh`), `python -m`, `uv run`,
//   `poetry run`, `pipenv run`, `pdm run`, `bundle exec`, `npm exec`, `pnpm exec`, `yarn exec`,
//   npx, bunx): such a change is often the fix itself, and it is recorded as the fix of the
//   plain command's failure;
// - a package manager's `run` before a script where it names the same script without it (`yarn
//   run lint` is `yarn lint`, as with pnpm and bun except bun's own commands: `bun run build` is
//   not `bun build`; `npm run test` is `npm test`, as with npm's start, stop and restart, its
//   only scripts run without `run`);
// - `cd` into the workspace itself (`cd /ws && make` is `make`; a `cd` elsewhere stays in the key);
// - `./` before a path, a trailing `/`, the workspace's own absolute path before a path;
// - output redirections (`2>&1`, `> log`) and trailing pipes into a viewer (| tee, head, tail,
//   less, more, cat); `;` and `&&` between commands read alike;
// - options that only change how output looks (`--color=always`, `--no-color`, `-no-color`,
//   `--quiet`, `--silent`, `--verbose`, `--progress`, gradle's `--info` and `--stacktrace`,
//   maven's `--batch-mode`, bazel's `--test_output=errors`, `--no-pager`...) or how many jobs
//   run at once (`-j4`, `--jobs=4`); short ones such as `-q` and `-v` stay (`grep -v` inverts,
//   `docker -v` mounts);
// - the order of options: `-x -q` is `-q -x`. Every other word keeps its place, so different
//   subcommands, targets or option values never match (`pytest tests/a` vs `pytest tests/b`).
// Known limit: an option that takes a value is not told from a switch, so `-a x -b` and
// `-a -b x` share a key (the same words, the options in another order).
// What this cannot read (unbalanced quotes, `$(...)`, backquotes, heredocs) is keyed on its text
// with whitespace collapsed, as is every command's display.
export const oneLine = (command) => String(command ?? "").replace(/\s+/g, " ").trim()
const VIEWERS = new Set(["tee", "head", "tail", "less", "more", "cat"])
// Wrappers: the word after one that must follow it (`uv run`), the options of its own that take
// a value (`timeout -s KILL`), and how many words it takes after its options (`timeout`'s time).
const WRAPPERS = new Set(["env", "time", "command", "nohup", "sudo", "nice", "timeout", "npx",
  "bunx", "uv", "poetry", "pipenv", "pdm", "bundle", "npm", "pnpm", "yarn", "python", "python3"])
const WRAPPER_NEXT = { uv: "run", poetry: "run", pipenv: "run", pdm: "run", bundle: "exec",
                       npm: "exec", pnpm: "exec", yarn: "exec", python: "-m", python3: "-m" }
const WRAPPER_VALUES = { timeout: ["-s", "-k", "--signal", "--kill-after"], nice: ["-n"],
                         env: ["-u", "--unset", "-C", "--chdir"], sudo: ["-u", "-g", "--user", "--group"] }
const WRAPPER_ARGS = { timeout: 1 }
const RUN_OPTIONAL = new Set(["yarn", "pnpm", "bun"]) // `yarn run x` is `yarn x`
// bun's own commands: `bun build` bundles and `bun test` runs bun's test runner, while `bun run
// build` and `bun run test` run the package's scripts of those names.
const BUN_COMMANDS = new Set(["build", "test", "install", "add", "remove", "update", "upgrade", "x",
  "init", "create", "link", "unlink", "pm", "publish", "outdated", "patch", "exec", "repl"])
const SHELLS = new Set(["bash", "sh", "zsh", "dash"]) // `bash script.sh` runs script.sh
const NPM_SCRIPTS = new Set(["test", "start", "stop", "restart"]) // `npm run test` is `npm test`
const DISPLAY = new RegExp("^--?(no-)?colou?rs?(=.*)?$|^--(quiet|silent|verbose|no-progress|progress(=.*)?|" +
  "info|stacktrace|full-stacktrace|scan|batch-mode|no-transfer-progress|verbose_failures|" +
  "test_output=.*|no-pager|no-cli-pager)$|^-j\\d+$|^--jobs=\\d+$")
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/
const REDIRECT = /^(\d*|&)(>>|>&|>|<&|<)[ \t]*("[^"]*"|'[^']*'|[^\s;&|<>]+)?/
const OPERATOR = /^(&&|\|\||;|\||\n|&)/

// The command's words and operators, quotes resolved; null when it is not plain shell words.
function shellTokens(text) {
  if (/\$\(|`|<</.test(text)) return null
  const tokens = []
  let word = null
  const push = () => { if (word !== null) tokens.push({ word }); word = null }
  for (let i = 0; i < text.length;) {
    const c = text[i]
    const redirect = (word === null || c === ">" || c === "<") && REDIRECT.exec(text.slice(i))
    if (redirect) {
      push()
      if (redirect[2].startsWith("<") && redirect[2] !== "<&") tokens.push({ word: `<${redirect[3] ?? ""}` })
      i += redirect[0].length
    } else if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1)
      if (end < 0) return null
      const quoted = text.slice(i + 1, end)
      word = (word ?? "") + (c === '"' ? quoted.replace(/\\(["\\$])/g, "$1") : quoted)
      i = end + 1
    } else if (c === "\\") {
      word = (word ?? "") + (text[i + 1] ?? "")
      i += 2
    } else if (c === " " || c === "\t") {
      push()
      i += 1
    } else if (OPERATOR.test(text.slice(i))) {
      const op = OPERATOR.exec(text.slice(i))[0]
      push()
      tokens.push({ op: op === "\n" || op === "&&" ? ";" : op })
      i += op.length
    } else {
      word = (word ?? "") + c
      i += 1
    }
  }
  push()
  return tokens
}

function pathWord(word, directory) {
  let w = directory && word.startsWith(`${directory}/`) ? word.slice(directory.length + 1) : word
  if (directory && w === directory) w = "."
  while (w.startsWith("./") && w.length > 2) w = w.slice(2)
  return w.length > 1 ? w.replace(/\/+$/, "") : w
}

// The words a wrapper runs (null when `words` is no wrapper running a command).
function unwrapped(words) {
  const name = words[0]
  if (SHELLS.has(name)) { // a shell running a script file with its options (not `bash -c '...'`)
    let i = 1
    while (i < words.length && /^[-+][a-z]+$/.test(words[i]) && !words[i].includes("c")) {
      i += /o$/.test(words[i]) ? 2 : 1 // `-o pipefail` names an option
    }
    return i < words.length && /^[-+]/.test(words[i]) === false ? words.slice(i) : null
  }
  const next = WRAPPER_NEXT[name]
  if (!WRAPPERS.has(name) || (next && words[1] !== next)) return null
  if (name === "command" && words[1]?.startsWith("-")) return null // `command -v x` looks x up
  let i = next ? 2 : 1
  const values = WRAPPER_VALUES[name] ?? []
  while (i < words.length && words[i].startsWith("-") && words[i] !== "--" && next !== "-m") {
    i += values.includes(words[i]) ? 2 : 1
  }
  if (words[i] === "--") i += 1
  i += WRAPPER_ARGS[name] ?? 0
  return i < words.length ? words.slice(i) : null
}

// One simple command's key: its program, its other words in order, its options sorted.
function simpleKey(words, directory) {
  let rest = words.filter((w) => !w.startsWith("<")).concat(words.filter((w) => w.startsWith("<")))
  for (let changed = true; changed && rest.length;) {
    changed = false
    while (rest.length && ASSIGNMENT.test(rest[0])) { rest = rest.slice(1); changed = true }
    const after = unwrapped(rest)
    if (after) { rest = after; changed = true }
  }
  if (RUN_OPTIONAL.has(rest[0]) && rest[1] === "run" && rest.length > 2 &&
      !(rest[0] === "bun" && BUN_COMMANDS.has(rest[2])) ||
      rest[0] === "npm" && ["run", "run-script"].includes(rest[1]) && NPM_SCRIPTS.has(rest[2])) {
    rest = [rest[0], ...rest.slice(2)]
  }
  rest = rest.filter((w) => !DISPLAY.test(w))
  if (!rest.length) return []
  const options = []
  const others = [pathWord(rest[0], directory)]
  let ended = false
  for (const w of rest.slice(1)) {
    if (!ended && w === "--") ended = true
    else if (!ended && w.length > 1 && w.startsWith("-")) options.push(w)
    else others.push(pathWord(w, directory))
  }
  return [...others, ...options.sort()]
}

// The key two equivalent commands share (see above); `directory` is the workspace.
export function commandKey(command, directory = "") {
  const text = String(command ?? "").trim()
  const tokens = shellTokens(text)
  if (!tokens) return oneLine(text)
  const parts = [] // [operator, [stage keys]] per command of a list
  let stages = [[]]
  let op = ";"
  const finish = (next) => {
    const keys = stages.map((words) => simpleKey(words, directory)).filter((k) => k.length)
    while (keys.length > 1 && VIEWERS.has(keys.at(-1)[0])) keys.pop()
    const intoWorkspace = keys.length === 1 && keys[0][0] === "cd" &&
      keys[0].length === 2 && keys[0][1] === "."
    if (keys.length && !intoWorkspace) parts.push([op, keys])
    stages = [[]]
    op = next
  }
  for (const token of tokens) {
    if (token.word !== undefined) stages.at(-1).push(token.word)
    else if (token.op === "|") stages.push([])
    else finish(token.op)
  }
  finish(";")
  if (parts.length) parts[0][0] = ";"
  return JSON.stringify(parts)
}
