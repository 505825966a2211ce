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
//   `poetry run`, `pipenv run`, `pdm run`, `bundle exec`, `npm exec`, `pnpm exec`, `pnpm dlx`,
//   `yarn exec`, `yarn dlx`, npx, bunx, `mise exec`/`mise x` with its tools before `--`,
//   `asdf exec`): such a change is often the fix itself, and it is recorded as the fix of the
//   plain command's failure;
// - a package manager's `run` before a script where it names the same script without it (`yarn
//   run lint` is `yarn lint`, as with pnpm, bun and turbo except their own commands: `bun run
//   build` is not `bun build`; `npm run test` is `npm test`, as with npm's start, stop and
//   restart, its only scripts run without `run`); nx's `run project:target` is `target project`;
// - `cd` into the workspace itself (`cd /ws && make` is `make`; a `cd` elsewhere stays in the key),
//   and a program's own option to run in another directory is that `cd` (`make -C sub`, `git -C
//   sub`, `terraform -chdir=sub`, `npm --prefix sub`, `pnpm -C sub`, `yarn --cwd sub`, `go -C
//   sub`, gradle's `-p sub`, cargo's `--manifest-path sub/Cargo.toml` are `cd sub && ...`); a
//   subshell around the whole command (`(cd sub && make)`) is the command;
// - `./` before a path, a trailing `/`, the workspace's own absolute path before a path;
// - output redirections (`2>&1`, `> log`) and trailing pipes into a viewer (| tee, head, tail,
//   less, more, cat); `;` and `&&` between commands read alike;
// - options that only change how output looks (`--color=always`, `--no-color`, `-no-color`,
//   `--quiet`, `--silent`, `--verbose`, `--progress`, gradle's `--info` and `--stacktrace`,
//   maven's `--batch-mode`, bazel's `--test_output=errors`, `--no-pager`...) or how many jobs
//   run at once (`-j4`, `--jobs=4`); short ones such as `-q` and `-v` stay (`grep -v` inverts,
//   `docker -v` mounts) but where a program's own documentation gives them that meaning (see
//   RUN_ONLY: pytest's `-v`, `-s`, `-rA`, `-n 4`, `--reruns 2`; jest's `--runInBand`;
//   playwright's `--retries=2`; a rust test binary's `--nocapture`; make's `-k`; maven's `-B`;
//   dotnet's `--logger ...`; a container's `--rm` and `-it`...), and its aliases are one option
//   (pre-commit's `-a` is `--all-files`);
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
  "bunx", "uv", "poetry", "pipenv", "pdm", "bundle", "npm", "pnpm", "yarn", "python", "python3",
  "mise", "asdf"])
const WRAPPER_NEXT = { uv: ["run"], poetry: ["run"], pipenv: ["run"], pdm: ["run"], bundle: ["exec"],
                       npm: ["exec"], pnpm: ["exec", "dlx"], yarn: ["exec", "dlx"], python: ["-m"],
                       python3: ["-m"], mise: ["exec", "x"], asdf: ["exec"] }
const TOOLS_UNTIL_DASHES = new Set(["mise"]) // `mise exec node@20 python@3.12 -- npm test`
const WRAPPER_VALUES = { timeout: ["-s", "-k", "--signal", "--kill-after"], nice: ["-n"],
                         env: ["-u", "--unset", "-C", "--chdir"], sudo: ["-u", "-g", "--user", "--group"] }
const WRAPPER_ARGS = { timeout: 1 }
const RUN_OPTIONAL = new Set(["yarn", "pnpm", "bun", "turbo"]) // `yarn run x` is `yarn x`
// Own commands of those that have them: `bun build` bundles and `bun test` runs bun's test
// runner, while `bun run build` and `bun run test` run the package's scripts of those names.
const OWN_COMMANDS = {
  bun: new Set(["build", "test", "install", "add", "remove", "update", "upgrade", "x", "init",
    "create", "link", "unlink", "pm", "publish", "outdated", "patch", "exec", "repl"]),
  turbo: new Set(["login", "logout", "link", "unlink", "prune", "gen", "generate", "ls", "info",
    "daemon", "telemetry", "scan", "query", "watch", "boundaries", "docs", "bin", "completion"]),
}
// Options that run a program as if started in another directory (see above); cargo's names the
// manifest in it.
const DIRECTORY_OPTIONS = {
  make: ["-C", "--directory"], git: ["-C"], terraform: ["-chdir"], tofu: ["-chdir"],
  npm: ["--prefix"], pnpm: ["-C", "--dir"], yarn: ["--cwd"], go: ["-C"],
  gradle: ["-p", "--project-dir"], gradlew: ["-p", "--project-dir"], cargo: ["--manifest-path"],
}
const MANIFESTS = /(^|\/)Cargo\.toml$/
// Options that change how a program runs or shows its work, never what it checks, as its own
// documentation gives them, by program (and subcommand): switches, options whose value is the
// next word, aliases of one option. `before` limits them to the words before the first operand
// (a container's image or pod: the command run inside keeps its own options).
const oneOf = (...patterns) => new RegExp(`^(${patterns.join("|")})$`)
const GRADLE = { switches: oneOf("--continue", "--parallel", "--no-daemon", "--console=.*", "-q", "-i") }
const TERRAFORM = { switches: oneOf("-input=false", "-lock=false", "-lock-timeout=.*", "-parallelism=\\d+",
  "-compact-warnings") }
const CONTAINER = ["-i", "-t", "-it", "-ti", "--interactive", "--tty"]
const CARGO_TEST = { switches: oneOf("--nocapture", "--show-output", "--test-threads=\\d+",
  "--no-fail-fast"), values: ["--test-threads", "--retries"] } // a rust test binary's after `--`
const SWIFT = { switches: oneOf("-v", "--verbose", "--very-verbose", "-vv"), values: ["-j", "--jobs"] }
const RUN_ONLY = {
  pytest: { switches: oneOf("-v+", "-q+", "-s", "-l", "-x", "--exitfirst", "--showlocals", "-r\\w+",
    "--durations=\\d+", "--no-header", "--capture=.*", "--reruns=\\d+", "--reruns-delay=.*",
    "-n(auto|\\d+)", "--numprocesses=.*"),
  values: ["--durations", "--reruns", "--reruns-delay", "-n", "--numprocesses"] },
  jest: { switches: oneOf("-i", "--runInBand", "--maxWorkers=.*", "--detectOpenHandles", "--forceExit",
    "--no-cache", "--verbose", "--silent"), values: ["-w", "--maxWorkers"] },
  vitest: { switches: oneOf("--reporter=.*", "--no-file-parallelism", "--silent"), values: ["--reporter"] },
  playwright: { switches: oneOf("--retries=\\d+", "--workers=.*", "--reporter=.*", "--headed", "--trace=.*",
    "--quiet"), values: ["--retries", "--workers", "-j", "--reporter", "--trace"] },
  "cargo test": CARGO_TEST, "cargo nextest run": CARGO_TEST,
  "go test": { switches: oneOf("-v", "-count=1", "-json", "-failfast") },
  make: { switches: oneOf("-k", "--keep-going", "-s", "-w", "--print-directory", "--no-print-directory",
    "-O\\w*", "--output-sync(=.*)?") },
  mvn: { switches: oneOf("-B", "-q", "-e", "-X", "--errors", "--debug", "-fae", "--fail-at-end", "-ntp"),
    values: ["-T", "--threads"] },
  gradle: GRADLE, gradlew: GRADLE,
  "swift build": SWIFT, "swift test": SWIFT,
  dotnet: { switches: oneOf("--nologo", "--logger=.*", "--verbosity=.*"),
    values: ["--logger", "-l", "-v", "--verbosity"] },
  tox: { switches: oneOf("-q+", "-v+", "-r", "--recreate") },
  terraform: TERRAFORM, tofu: TERRAFORM,
  "pre-commit": { aliases: { "--all-files": "-a" } },
  nox: { aliases: { "--session": "-s", "--sessions": "-s" } },
  "docker run": { switches: oneOf("--rm", "--init", ...CONTAINER), before: true },
  "docker exec": { switches: oneOf(...CONTAINER), before: true },
  "docker compose run": { switches: oneOf("--rm", "-T", "--no-TTY", ...CONTAINER), before: true },
  "docker compose exec": { switches: oneOf("-T", "--no-TTY", ...CONTAINER), before: true },
  "podman run": { switches: oneOf("--rm", "--init", ...CONTAINER), before: true },
  "kubectl exec": { switches: oneOf("--stdin", "-q", "--quiet", ...CONTAINER), before: true },
}
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
  if (!WRAPPERS.has(name) || (next && !next.includes(words[1]))) return null
  if (name === "command" && words[1]?.startsWith("-")) return null // `command -v x` looks x up
  let i = next ? 2 : 1
  if (TOOLS_UNTIL_DASHES.has(name) && words.includes("--")) i = words.indexOf("--")
  const values = WRAPPER_VALUES[name] ?? []
  while (i < words.length && words[i].startsWith("-") && words[i] !== "--" && words[1] !== "-m") {
    i += values.includes(words[i]) ? 2 : 1
  }
  if (words[i] === "--") i += 1
  i += WRAPPER_ARGS[name] ?? 0
  return i < words.length ? words.slice(i) : null
}

// The directory a program's own option runs it in (see DIRECTORY_OPTIONS), and its words without
// that option.
function liftDirectory(words) {
  const options = DIRECTORY_OPTIONS[words[0].split("/").at(-1)] ?? []
  for (let i = 1; i < words.length && words[i] !== "--"; i++) {
    const option = options.find((o) => words[i] === o || words[i].startsWith(`${o}=`))
    if (!option) continue
    const value = words[i] === option ? words[i + 1] : words[i].slice(option.length + 1)
    if (value === undefined) break
    const dir = MANIFESTS.test(value) ? value.replace(MANIFESTS, "") || "." : value
    return [dir, words.slice(0, i).concat(words.slice(words[i] === option ? i + 2 : i + 1))]
  }
  return [null, words]
}

// Options of a program (before its subcommand) whose value is the next word (`kubectl -n shop
// exec`, `docker compose -f dev.yml run`): that word is no subcommand.
const GLOBAL_VALUES = new Set(["-n", "--namespace", "--context", "--kubeconfig", "-f", "--file",
  "-p", "--project-name", "-c", "-C"])

// The words of `words` without the options RUN_ONLY gives its program and subcommand.
function withoutRunOnly(words) {
  const program = words[0].split("/").at(-1)
  const subcommands = words.slice(1).filter((w, i) => !w.startsWith("-") && !GLOBAL_VALUES.has(words[i]))
  const depth = [2, 1, 0].find((n) => subcommands.length >= n &&
    RUN_ONLY[[program, ...subcommands.slice(0, n)].join(" ")])
  if (depth === undefined) return words
  const rule = RUN_ONLY[[program, ...subcommands.slice(0, depth)].join(" ")]
  const kept = [words[0]]
  let plainWords = 0
  for (let i = 1; i < words.length; i++) {
    const w = words[i]
    if (rule.before && GLOBAL_VALUES.has(w)) kept.push(w, words[++i])
    else if (rule.before && !w.startsWith("-") && ++plainWords > depth) return kept.concat(words.slice(i))
    else if (rule.values?.includes(w)) i += 1
    else if (!rule.switches?.test(w)) kept.push(rule.aliases?.[w] ?? w)
  }
  return kept.filter((w) => w !== undefined)
}

// One simple command's key: its program, its other words in order, its options sorted; and the
// directory its own option runs it in (null when none).
function simpleKey(words, directory) {
  let rest = words.filter((w) => !w.startsWith("<")).concat(words.filter((w) => w.startsWith("<")))
  for (let changed = true; changed && rest.length;) {
    changed = false
    while (rest.length && ASSIGNMENT.test(rest[0])) { rest = rest.slice(1); changed = true }
    const after = unwrapped(rest)
    if (after) { rest = after; changed = true }
  }
  if (!rest.length) return { key: [], dir: null }
  const [dir, lifted] = liftDirectory(rest)
  rest = lifted
  if (RUN_OPTIONAL.has(rest[0]) && rest[1] === "run" && rest.length > 2 &&
      !OWN_COMMANDS[rest[0]]?.has(rest[2]) ||
      rest[0] === "npm" && ["run", "run-script"].includes(rest[1]) && NPM_SCRIPTS.has(rest[2])) {
    rest = [rest[0], ...rest.slice(2)]
  }
  const target = rest[0] === "nx" && rest[1] === "run" && /^([^:]+):([^:]+)(?::(.+))?$/.exec(rest[2] ?? "")
  if (target) {
    rest = ["nx", target[2], target[1], ...(target[3] ? [`--configuration=${target[3]}`] : []),
      ...rest.slice(3)]
  }
  rest = withoutRunOnly(rest).filter((w) => !DISPLAY.test(w))
  if (!rest.length) return { key: [], dir }
  const options = []
  const others = [pathWord(rest[0], directory)]
  let ended = false
  for (const w of rest.slice(1)) {
    if (!ended && w === "--") ended = true
    else if (!ended && w.length > 1 && w.startsWith("-")) options.push(w)
    else others.push(pathWord(w, directory))
  }
  return { key: [...others, ...options.sort()], dir: dir === null ? null : pathWord(dir, directory) }
}

// The key two equivalent commands share (see above); `directory` is the workspace.
export function commandKey(command, directory = "") {
  let text = String(command ?? "").trim()
  const subshell = /^\(([^()]*)\)$/.exec(text)
  if (subshell) text = subshell[1].trim()
  const tokens = shellTokens(text)
  if (!tokens) return oneLine(text)
  const parts = [] // [operator, [stage keys]] per command of a list
  let stages = [[]]
  let op = ";"
  const finish = (next) => {
    const simple = stages.map((words) => simpleKey(words, directory)).filter((s) => s.key.length)
    while (simple.length > 1 && VIEWERS.has(simple.at(-1).key[0])) simple.pop()
    if (simple.length === 1 && simple[0].dir !== null) { // `make -C sub` is `cd sub && make`
      if (simple[0].dir !== ".") parts.push([op, [["cd", simple[0].dir]]])
      op = ";"
    }
    // in a pipeline, a stage run elsewhere keeps where it runs
    const keys = simple.map((s) => simple.length === 1 || s.dir === null ? s.key
      : [...s.key, `(in ${s.dir})`])
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
