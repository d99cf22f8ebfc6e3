#!/usr/bin/env python3
"""Differential test of umac-opt against mlir-opt 22.

    compare.py ARGS...          run `mlir-opt ARGS` and `umac-opt ARGS` and compare them
    compare.py --lit-runs DIR.. do the same for every `// RUN:` line of the lit tests under DIR
                                whose umac-opt command and input use nothing of umac's own
    compare.py --registries     check that umac-opt's dialects, passes and pipelines (as
                                --show-dialects, --list-passes and --help list them) are exactly
                                mlir-opt's plus umac's own

Both tools get the same arguments and the same standard input (this script's, read once), each
in a fresh empty working directory. They must agree on the exit code, the standard output byte
for byte, the standard error modulo the program's name and path, and every file they wrote in
the working directory (`-o out.mlir`, or a stray file a misparsed option would create).
Exits 0 when they agree; otherwise prints what differs and exits 1.
"""

import difflib
import os
import re
import shlex
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MLIR_OPT = os.environ.get("MLIR_OPT", "/usr/lib/llvm-22/bin/mlir-opt")
UMAC_OPT = os.environ.get(
    "UMAC_OPT",
    os.path.join(os.environ.get("UMAC_BIN_DIR", os.path.join(ROOT, "target", "debug")), "umac-opt"))
TIMEOUT_SECONDS = 120


def normalize(text, tool):
    """Stands the tool's path and name in for a placeholder, where LLVM prints them."""
    text = text.replace(tool.encode(), b"<tool>")
    name = os.path.basename(tool).encode()
    text = re.sub(rb"(?m)^USAGE: " + re.escape(name) + rb" ", b"USAGE: <tool> ", text)
    return re.sub(rb"(?m)^" + re.escape(name) + rb":", b"<tool>:", text)


def run(tool, args, stdin):
    """Runs `tool args` in a fresh directory: exit code, stdout, stderr, files written."""
    with tempfile.TemporaryDirectory(prefix="umac-diff-") as cwd:
        try:
            done = subprocess.run([tool] + args, input=stdin, capture_output=True, cwd=cwd, timeout=TIMEOUT_SECONDS)
            code = done.returncode
            out, err = done.stdout, done.stderr
        except subprocess.TimeoutExpired as e:
            code, out, err = "timeout", e.stdout or b"", e.stderr or b""
        files = {}
        for dirpath, _, names in os.walk(cwd):
            for name in names:
                path = os.path.join(dirpath, name)
                with open(path, "rb") as f:
                    files[os.path.relpath(path, cwd)] = normalize(f.read(), tool)
        return code, out, normalize(err, tool), files


def show(label, expected, actual):
    lines = difflib.unified_diff(
        expected.decode(errors="replace").splitlines(keepends=True),
        actual.decode(errors="replace").splitlines(keepends=True),
        "mlir-opt " + label, "umac-opt " + label)
    return "".join(lines)


def absolute(args):
    """Arguments naming existing files made absolute (the tools run in directories of their own)."""
    return [os.path.abspath(a) if not a.startswith("-") and os.path.exists(a) else a for a in args]


def compare(args, stdin=b"", umac_only=lambda text: text):
    """The differences between the two tools on `args`, as text ('' when none); `umac_only`
    removes what umac adds from umac-opt's standard output first."""
    args = absolute(args)
    m_code, m_out, m_err, m_files = run(MLIR_OPT, args, stdin)
    u_code, u_out, u_err, u_files = run(UMAC_OPT, args, stdin)
    m_out, u_out = normalize(m_out, MLIR_OPT), umac_only(normalize(u_out, UMAC_OPT))
    problems = []
    if m_code != u_code:
        problems.append("exit code: mlir-opt %s, umac-opt %s\n" % (m_code, u_code))
    if m_code == "timeout" or (isinstance(m_code, int) and m_code < 0):
        problems.append("mlir-opt itself did not finish normally (%s): not a usable reference\n" % m_code)
    if m_out != u_out:
        problems.append(show("stdout", m_out, u_out))
    if m_err != u_err:
        problems.append(show("stderr", m_err, u_err))
    if sorted(m_files) != sorted(u_files):
        problems.append("files written: mlir-opt %s, umac-opt %s\n" % (sorted(m_files), sorted(u_files)))
    for name in sorted(set(m_files) & set(u_files)):
        if m_files[name] != u_files[name]:
            problems.append(show(name, m_files[name], u_files[name]))
    return "".join(problems)


def run_lines(path):
    """The `// RUN:` commands of a lit test, continuation lines joined."""
    commands, current = [], None
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            found = re.search(r"RUN:(.*)$", line)
            if not found:
                continue
            text = found.group(1).rstrip()
            current = text if current is None else current + " " + text.lstrip()
            if current.endswith("\\"):
                current = current[:-1]
                continue
            commands.append(current.strip())
            current = None
    return commands


# What makes a RUN line umac's own: a umac pass, pipeline or flag in its arguments, as written in
# the test (lit's %-substitutions taken out first: they expand to paths, and the checkout's path
# must never decide what is compared).
UMAC_WORDS = re.compile(r"umac|--debug-crash")
SUBSTITUTION = re.compile(r"%[A-Za-z_]+")
# Flags that list the registries, which differ by design (umac's dialect and passes are in them,
# the test dialect and test passes of mlir-opt are not).
LISTINGS = {"--list-passes", "-list-passes", "--help", "-help", "--help-hidden", "--show-dialects", "--version"}


_ACCELERATORS = None


def accelerators():
    """The accelerators umac-opt was built with (one `umac-legalize-<name>` pass each): their
    dialects (a backend's primitive ops) are umac's own too."""
    global _ACCELERATORS
    if _ACCELERATORS is None:
        listing = subprocess.run([UMAC_OPT, "--list-passes"], capture_output=True, timeout=TIMEOUT_SECONDS).stdout
        _ACCELERATORS = sorted(set(re.findall(rb"--umac-legalize-([a-z0-9_]+)", listing)))
    return _ACCELERATORS


def uses_umac(path):
    """Tells whether the MLIR in `path` (comments aside) names anything of umac's: the umac
    dialect or passes, or an op of an accelerator's dialect."""
    names = b"|".join(re.escape(a) for a in accelerators()) or b"umac"
    ops = re.compile(rb"[\"\s(](?:" + names + rb")\.[a-z_0-9]+")
    with open(path, "rb") as f:
        return any(b"umac" in code or ops.search(code) for code in (line.split(b"//")[0] for line in f))


def upstream_invocations(path):
    """(arguments, why it is skipped or None) of each umac-opt command in the RUN lines of `path`."""
    substitutions = {"%s": path, "%S": os.path.dirname(path), "%umac_root": ROOT,
                     "%models": os.path.join(ROOT, "test", "models")}
    expand = lambda word: SUBSTITUTION.sub(lambda m: substitutions.get(m.group(0), m.group(0)), word)
    found = []
    for command in run_lines(path):
        stages = re.split(r"\s*(?:\|\||&&|\||;)\s*", command)
        for position, stage in enumerate(stages):
            # Split the words as written, then expand each: a path with spaces stays one word.
            words = shlex.split(stage)
            if words[:1] == ["not"]:
                words = words[1:]
            if words[:1] != ["umac-opt"]:
                continue
            written = []
            for word in words[1:]:
                if re.match(r"^(\d?>|<|2>&1$)", word):
                    break  # redirections end the arguments
                written.append(word)
            args = [expand(word) for word in written]
            files = [a for a in args if not a.startswith("-") and os.path.isfile(a)]
            reads_pipe = "-" in args and position > 0
            if UMAC_WORDS.search(" ".join(SUBSTITUTION.sub("", word) for word in written)):
                found.append((args, "names something of umac's"))
            elif any(f.lower().endswith((".tflite", ".tosa")) for f in files):
                found.append((args, "a .tflite or .tosa input, which umac-opt reads and mlir-opt cannot"))
            elif LISTINGS.intersection(args):
                found.append((args, "lists the registries"))
            elif reads_pipe or any("%t" in a for a in args):
                found.append((args, "reads what another command made"))
            elif any(uses_umac(f) for f in files):
                found.append((args, "its input uses umac's dialect or passes"))
            else:
                found.append((args, None))
    return found


def lit_runs(directories):
    compared, skipped, failed = 0, 0, 0
    for directory in directories:
        for dirpath, dirnames, names in os.walk(directory):
            dirnames[:] = sorted(d for d in dirnames if d not in ("Output", "Inputs"))
            for name in sorted(names):
                if not name.endswith(".mlir"):
                    continue
                path = os.path.join(dirpath, name)
                for args, reason in upstream_invocations(path):
                    if reason:
                        skipped += 1
                        continue
                    compared += 1
                    problems = compare(args)
                    if problems:
                        failed += 1
                        print("DIFFERS: %s: umac-opt %s\n%s" % (path, shlex.join(args), problems))
    print("lit RUN lines: %d compared with mlir-opt, %d differ, %d skipped (umac's own)" % (compared, failed, skipped))
    if compared == 0:
        print("error: no RUN line was compared")
        return 1
    return 1 if failed else 0


def without_umac(text):
    """A registry listing with umac's dialects (its own and its accelerators'), passes and
    pipelines (and their options) taken out."""
    kept, dropping_below = [], None
    for line in text.decode().splitlines(keepends=True):
        indent = len(line) - len(line.lstrip(" "))
        if dropping_below is not None and indent > dropping_below:
            continue
        dropping_below = indent if line.lstrip().startswith("--umac-") else None
        if dropping_below is None:
            for name in ["umac"] + [a.decode() for a in accelerators()]:
                line = line.replace(",%s," % name, ",").replace(", %s," % name, ",")
            kept.append(line)
    return "".join(kept).encode()


def registries():
    failed = 0
    for flag in ["--show-dialects", "--list-passes", "--help"]:
        problems = compare([flag], umac_only=without_umac)
        if problems:
            failed += 1
            print("umac-opt %s lists more or less than mlir-opt's and umac's own:\n%s" % (flag, problems))
    return 1 if failed else 0


def main(argv):
    if argv[:1] == ["--lit-runs"]:
        return lit_runs(argv[1:])
    if argv == ["--registries"]:
        return registries()
    stdin = b"" if sys.stdin is None or sys.stdin.isatty() else sys.stdin.buffer.read()
    problems = compare(argv, stdin)
    if problems:
        print("umac-opt differs from mlir-opt on: %s\n%s" % (shlex.join(argv), problems))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
