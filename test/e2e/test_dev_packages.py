"""Every Debian package whose files Saguaro's builds and tests use is on `dev`'s package list for that purpose, or
is installed by one that is (a Depends or Pre-Depends of a listed package, recursively), or is part of every
Debian system (Essential, Priority required).

The files a purpose uses, as this machine shows them:
- build (BUILD_PACKAGES): every header the build's compilers opened (ninja's deps log of build/), every absolute
  path its commands name (compilers behind ccache, flatc, mlir-tblgen, archives), the shared libraries its
  programs load (ldd of build/bin/*).
- test (TEST_PACKAGES, on top of build): the same for the build trees the tests made under build/test (bundles,
  the aarch64 cross builds), the modules the Python test scripts import, and the tools test_aarch64.py runs.
- fuzz (FUZZ_PACKAGES, on top of build): build-fuzz's deps log when it exists, and the runtime archives clang-19
  links `-fsanitize=fuzzer,address` programs with.
A file that does not exist is not used here (a package that is not installed uses nothing); a used file outside
every Debian package (other than the checkout's and the build trees' own) is an error too.
"""
import ast
import glob
import os
import re
import shlex
import shutil
import subprocess
import sys

import common

PURPOSE_LISTS = {"build": ["BUILD_PACKAGES"], "test": ["BUILD_PACKAGES", "TEST_PACKAGES"],
                 "fuzz": ["BUILD_PACKAGES", "FUZZ_PACKAGES"]}


def dev_lists(dev_path):
    """{NAME_PACKAGES: [package, ...]} from the bash arrays in `dev`."""
    lists, name = {}, None
    for line in open(dev_path):
        code = line.split("#", 1)[0]
        start = re.match(r"^(\w+_PACKAGES)=\((.*)", code)
        if start:
            name, code = start.group(1), start.group(2)
            lists[name] = []
        if name:
            lists[name] += code.split(")", 1)[0].split()
            if ")" in code:
                name = None
    return lists


def installed_packages():
    """{package: paragraph dict} for every installed package in dpkg's status file."""
    packages = {}
    for para in open("/var/lib/dpkg/status", encoding="utf-8", errors="replace").read().split("\n\n"):
        fields, key = {}, None
        for line in para.splitlines():
            if line.startswith((" ", "\t")) and key:
                fields[key] += " " + line.strip()
            elif ":" in line:
                key, value = line.split(":", 1)
                fields[key] = value.strip()
        if fields.get("Package") and fields.get("Status", "").endswith(" installed"):
            packages[fields["Package"]] = fields
    return packages


def dependency_closure(roots, packages):
    """The installed packages `roots` bring in through Depends and Pre-Depends (every installed alternative)."""
    providers = {}
    for name, fields in packages.items():
        for virtual in fields.get("Provides", "").split(","):
            if virtual.strip():
                providers.setdefault(virtual.split("(")[0].strip().split(":")[0], []).append(name)
    seen, todo = set(), [r for r in roots if r in packages]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        fields = packages[name]
        for group in (fields.get("Depends", "") + "," + fields.get("Pre-Depends", "")).split(","):
            for alt in group.split("|"):
                dep = alt.split("(")[0].strip().split(":")[0]
                if not dep:
                    continue
                todo.extend(d for d in [dep, *providers.get(dep, [])] if d in packages and d not in seen)
    return seen


def file_owners():
    """{path: package} from dpkg's file lists."""
    owners = {}
    for lst in glob.glob("/var/lib/dpkg/info/*.list"):
        package = os.path.basename(lst)[:-len(".list")].split(":")[0]
        for line in open(lst, encoding="utf-8", errors="replace"):
            owners.setdefault(line.rstrip("\n"), package)
    return owners


def owner_of(path, owners):
    """The package that holds path (as named, resolved, or across the merged /usr), or None."""
    candidates = [os.path.normpath(path), os.path.realpath(path)]
    for c in list(candidates):
        if c.startswith("/usr/"):
            candidates.append(c[len("/usr"):])
        elif c.startswith(("/lib", "/bin", "/sbin")):
            candidates.append("/usr" + c)
    for c in candidates:
        if c in owners:
            return owners[c]
    return None


def build_tree_files(tree):
    """Absolute paths a ninja build tree used: its deps log and the paths its commands name."""
    used = set()
    if not os.path.exists(os.path.join(tree, "build.ninja")):
        return used
    deps = subprocess.run(["ninja", "-C", tree, "-t", "deps"], capture_output=True, text=True).stdout
    for line in deps.splitlines():
        if line.startswith("    ") and line.strip().startswith("/"):
            used.add(line.strip())
    commands = subprocess.run(["ninja", "-C", tree, "-t", "commands"], capture_output=True, text=True).stdout
    for command in commands.splitlines():
        try:
            words = shlex.split(command)
        except ValueError:
            words = command.split()
        for i, word in enumerate(words):
            word = word.split("=", 1)[-1] if word.startswith("-") else word
            if i == 0 or words[i - 1] in ("&&", "ccache", "/usr/bin/ccache"):
                word = shutil.which(word) or word
            if word.startswith("/") and os.path.isfile(word):
                used.add(word)
    for program in glob.glob(os.path.join(tree, "bin", "*")):
        ldd = subprocess.run(["ldd", program], capture_output=True, text=True).stdout
        used.update(re.findall(r"=> (/\S+)", ldd))
    return used


def python_module_files(source_dir):
    """Files of the non-standard modules the test scripts import, as /usr/bin/python3 finds them."""
    local = {os.path.splitext(os.path.basename(p))[0] for p in glob.glob(os.path.join(source_dir, "**", "*.py"),
                                                                            recursive=True)}
    names = set()
    scripts = glob.glob(os.path.join(source_dir, "test", "**", "*.py"), recursive=True)
    for script in (s for s in scripts if not s.endswith(".cfg.py")):  # lit loads its configs with its own modules
        for node in ast.walk(ast.parse(open(script).read())):
            if isinstance(node, ast.Import):
                names.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                names.add(node.module.split(".")[0])
    names = sorted(n for n in names - local if n not in sys.stdlib_module_names)
    probe = ("import importlib, sys\n"
             "for n in sys.argv[1:]:\n"
             "    try: print(importlib.import_module(n).__file__)\n"
             "    except Exception as e: print('# ' + n + ': ' + str(e).splitlines()[0])\n")
    out = subprocess.run(["/usr/bin/python3", "-c", probe, *names], capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("# "):
            print(f"note: /usr/bin/python3 cannot import {line[2:]} (the tests that need it skip)")
    return {line for line in out.splitlines() if line.startswith("/")}


def aarch64_tools(source_dir):
    """The tools test_aarch64.py runs (its TOOLS tuple), as PATH finds them."""
    tree = ast.parse(open(os.path.join(source_dir, "test", "e2e", "test_aarch64.py")).read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "TOOLS" for t in node.targets):
            return {p for p in (shutil.which(t) for t in ast.literal_eval(node.value)) if p}
    raise SystemExit("FAIL: test_aarch64.py has no TOOLS tuple")


def sanitizer_runtimes():
    """The archives clang-19 links a libFuzzer + AddressSanitizer program with (those installed)."""
    clang = shutil.which("clang++-19")
    if not clang:
        return set()
    out = subprocess.run([clang, "-fsanitize=fuzzer,address", "-###", "x.o", "-o", "x"], capture_output=True,
                         text=True).stderr
    return {w for w in re.findall(r'"(/[^"]+)"', out) if os.path.isfile(w)}


def main():
    args = common.parse_args()
    source = os.path.realpath(args.source_dir)
    build = os.path.realpath(os.path.dirname(os.path.dirname(args.saguaro)))
    lists = dev_lists(os.path.join(source, "dev"))
    missing = [n for names in PURPOSE_LISTS.values() for n in names if n not in lists]
    if missing:
        raise SystemExit(f"FAIL: dev has no {', '.join(sorted(set(missing)))}")

    build_files = build_tree_files(build)
    test_trees = {os.path.dirname(p) for p in glob.glob(os.path.join(build, "test", "**", "build.ninja"),
                                                          recursive=True)}
    test_files = set(build_files).union(*(build_tree_files(t) for t in test_trees))
    test_files |= python_module_files(source) | aarch64_tools(source)
    fuzz_files = build_tree_files(os.path.join(source, "build-fuzz")) | sanitizer_runtimes()
    uses = {"build": build_files, "test": test_files, "fuzz": fuzz_files}
    print(f"build trees read for the test purpose: {len(test_trees)}")

    packages, owners = installed_packages(), file_owners()
    base = {n for n, f in packages.items() if f.get("Essential") == "yes" or f.get("Priority") == "required"}
    ours = (source, build, os.path.realpath(args.work_dir), "/tmp/", "/proc/")
    failures = []
    for purpose, names in PURPOSE_LISTS.items():
        listed = [p for n in names for p in lists[n]]
        covered = dependency_closure(listed + sorted(base), packages)
        used_packages, uncovered = set(), {}
        for path in sorted(uses[purpose]):
            if path.startswith(ours):
                continue
            package = owner_of(path, owners)
            if package is None:
                failures.append(f"{purpose}: {path} is in no installed Debian package")
                continue
            used_packages.add(package)
            if package not in covered:
                uncovered.setdefault(package, path)
        for package, path in sorted(uncovered.items()):
            failures.append(f"{purpose}: {path} belongs to {package}, which nothing on dev's "
                            f"{' + '.join(names)} installs")
        print(f"{purpose}: {len(uses[purpose])} files used, from {len(used_packages)} packages, "
              f"{len(uncovered)} not covered by dev's lists")
    for line in failures:
        print(f"FAIL {line}")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
