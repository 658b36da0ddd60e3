#!/usr/bin/env python3
"""The house's layering, checked on the source tree and on what meson built from it (the
pictures atop runner/meson.build and reports/meson.build; docs/design.md, "The folders and
their rules").

    layering.py includes ROOT             every #include "x.h" in engines/, reports/, runner/
                                          and tests/ runs the right way
    layering.py engine-names ROOT         no code outside engines/ names an engine as a string
    layering.py libc-headers ROOT -- CC   no header of ours is named like one the C library or
                                          the compiler CC provides
    layering.py symbols ROOT BUILD [--nm NM]
                                          in the static libraries meson built into BUILD: no
                                          two files use each other's functions, even through
                                          others (a cycle), and no file uses a function of a
                                          folder it may not use
    layering.py self-test [-- CC]         every check fails on a small tree that breaks it (TAP)

A folder may use its own files and those of the folders listed for it in ALLOWED; runner's
top files (main.c, cli.c, commands.c) may use anything, and nb_config.h (the header meson
generates) is allowed everywhere. Tests may include any header but an internal one
(NAME_int.h, shared by one module's files only), and no folder includes another's internal
header (an engine's private state, latency_int.h, is that engine's). Every folder with C
files under engines/, reports/ and runner/ must be one ALLOWED knows. A finding is one line on stderr (a cycle adds a
line per use that ties it); the exit code is 1 when any was found, 0 when none, 2 on bad usage.

An engine name (each `.name` of the engine tables engines/registry.c lists) is reported in
runner/ and reports/ when its string literal stands on a line that compares strings (strcmp and
kin) or mentions an engine identifier (p->engine, is_engine, engine_names[]): what an engine is
belongs in its table. The same words as column names, unit suffixes or JSON keys are not.

A header of ours named like a C library header (error.h, limits.h, paths.h ...) is found
instead of the library's by `#include <limits.h>` in a file compiled with our flat -I list; the
names are the top-level headers of the compiler's own search list (`CC -E -v`).
"""
import json
import os
import re
import subprocess
import sys

# Folder of a file (relative to ROOT) -> its key in ALLOWED.
FOLDERS = {
    'engines': 'engines',
    'engines/xdp': 'engines',
    'reports/base': 'base',
    'reports/files': 'files',
    'reports/analysis': 'analysis',
    'reports/report': 'report',
    'reports/compare': 'compare',
    'reports/export': 'export',
    'runner/config': 'config',
    'runner/env': 'env',
    'runner/control': 'control',
    'runner/run': 'run',
    'runner': 'runner',
    'tests': 'tests',
}
# reports/ inside, bottom-up: base (formats and value types), files (one owner per results
# file, the loader), analysis (what a folder adds up to), and the three commands that read it.
REPORTS = {'base', 'files', 'analysis', 'report', 'compare', 'export'}
ALLOWED = {
    'engines': set(),
    'base': {'engines'},
    'files': {'base', 'engines'},
    'analysis': {'files', 'base', 'engines'},
    'report': {'analysis', 'files', 'base', 'engines'},
    'compare': {'analysis', 'files', 'base', 'engines'},
    'export': {'analysis', 'files', 'base', 'engines'},
    'config': {'engines'},
    'env': REPORTS | {'engines'},
    # The control plane carries resolved engine parameters, never the config language:
    # nothing in control/ includes config/ today and its meson library does not depend on it.
    'control': {'env', 'engines'} | REPORTS,
    'run': {'control', 'config', 'env', 'engines'} | REPORTS,
    'runner': None,  # main.c, cli.c, commands.c: anything
    'tests': None,   # anything public: never an internal header (NAME_int.h)
}
CHECKED_TOPS = ('engines', 'reports', 'runner')  # every C folder below these must be known
ANYWHERE = {'nb_config.h'}

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
COMPARE = re.compile(r'\b(?:str(?:n)?(?:case)?cmp|memcmp)\s*\(')
ENGINE_IDENT = re.compile(r'\w*engine\w*', re.I)
REGISTRY = re.compile(r'\bengines\s*\[[^\]]*\]\s*=\s*\{(.*?)\};', re.S)
ENGINE_TABLE = re.compile(r'\bconst\s+struct\s+nb_engine\s+(\w+)\s*=\s*\{(.*?)\n\};', re.S)
ENGINE_NAME = re.compile(r'\.name\s*=\s*"([^"]*)"')
NM_LINE = re.compile(r'^(.*)\[(.*)\]: (\S+) (\S)')
DEFINED = set('TDRBCGSVWui')  # nm types of a global definition ('U' is a use)


def sources(root):
    """(folder key, path relative to root) of every .c and .h file the checks read."""
    for rel, key in FOLDERS.items():
        top = os.path.join(root, rel)
        if not os.path.isdir(top):
            continue
        for name in sorted(os.listdir(top)):
            if name.endswith(('.c', '.h')) and os.path.isfile(os.path.join(top, name)):
                yield key, os.path.join(rel, name)


def header_index(root):
    """Header file name -> folder keys that hold one by that name."""
    index = {}
    for key, rel in sources(root):
        if rel.endswith('.h'):
            index.setdefault(os.path.basename(rel), []).append(key)
    return index


def folder_of_path(root, path):
    """Folder key of an existing file path, or None when it is outside the checked folders."""
    rel = os.path.relpath(os.path.realpath(path), os.path.realpath(root))
    return FOLDERS.get(os.path.dirname(rel))


def resolve(root, rel, target, index):
    """Folder key of an included header, or an error text."""
    if '/' in target:  # a path: from the including file's folder, then from the root
        for base in (os.path.dirname(os.path.join(root, rel)), root):
            p = os.path.join(base, target)
            if os.path.isfile(p):
                key = folder_of_path(root, p)
                return key if key else 'a file outside engines/, reports/ and runner/'
        return 'a header that does not exist'
    keys = index.get(target, [])
    if len(keys) == 1:
        return keys[0]
    if not keys:
        return 'a header that does not exist'
    return 'an ambiguous name (%s)' % ', '.join(sorted(keys))


def unknown_folders(root):
    """Folders with C files below engines/, reports/ and runner/ that FOLDERS does not know:
    their files would go unchecked."""
    bad = []
    for top in CHECKED_TOPS:
        for d, subs, names in os.walk(os.path.join(root, top)):
            subs.sort()
            rel = os.path.relpath(d, root)
            if rel not in FOLDERS and any(n.endswith(('.c', '.h')) for n in names):
                bad.append('%s: a folder the layering does not know (add it to '
                           'tests/layering.py)' % rel)
    return bad


def check_includes(root):
    index = header_index(root)
    bad = unknown_folders(root)
    for key, rel in sources(root):
        with open(os.path.join(root, rel), encoding='utf-8', errors='replace') as f:
            for n, line in enumerate(f, 1):
                m = INCLUDE.match(line)
                if not m or m.group(1) in ANYWHERE:
                    continue
                target = m.group(1)
                where = resolve(root, rel, target, index)
                if where not in ALLOWED:
                    bad.append('%s:%d: includes %s, %s' % (rel, n, target, where))
                elif not may_use(key, where):
                    bad.append('%s:%d: includes %s from %s (%s may not use it)'
                               % (rel, n, target, where, key))
                elif key == 'tests' and target.endswith('_int.h'):
                    bad.append('%s:%d: includes %s, an internal header of %s (test through its '
                               'public header)' % (rel, n, target, where))
                elif target.endswith('_int.h') and where != key:
                    bad.append('%s:%d: includes %s, an internal header of %s (use its public '
                               'header)' % (rel, n, target, where))
    return bad


def may_use(key, other):
    return key == other or ALLOWED[key] is None or other in ALLOWED[key]


def code_lines(text):
    """The text with comments blanked (newlines kept) and its string literals listed per line."""
    out, literals, pos, line = [], {}, 0, 1
    for m in TOKENS.finditer(text):
        out.append(text[pos:m.start()])
        tok = m.group(0)
        if tok.startswith('"'):
            literals.setdefault(line + text.count('\n', pos, m.start()), []).append(tok[1:-1])
            out.append('""')
        elif not tok.startswith("'"):
            out.append('\n' * tok.count('\n'))
        else:
            out.append(tok)
        line += text.count('\n', pos, m.end())
        pos = m.end()
    out.append(text[pos:])
    return ''.join(out).split('\n'), literals


def read(root, rel):
    with open(os.path.join(root, rel), encoding='utf-8', errors='replace') as f:
        return f.read()


def engine_names(root):
    """The `.name` of every engine table engines/registry.c lists, or an error text (str)."""
    try:
        text = code_lines(read(root, 'engines/registry.c'))[0]
    except OSError as e:
        return 'engines/registry.c: cannot read it (%s)' % e.strerror
    m = REGISTRY.search('\n'.join(text))
    listed = re.findall(r'&\s*(\w+)', m.group(1)) if m else []
    if not listed:
        return 'engines/registry.c: no engine listed in its engines[] array'
    tables = {}
    for key, rel in sources(root):
        if key == 'engines' and rel.endswith('.c'):
            for t in ENGINE_TABLE.finditer(read(root, rel)):
                name = ENGINE_NAME.search(t.group(2))
                tables[t.group(1)] = name.group(1) if name else None
    missing = [t for t in listed if not tables.get(t)]
    if missing:
        return 'engines/: no table with a .name for %s (listed in engines/registry.c)' % (
            ', '.join(missing))
    return [tables[t] for t in listed]


def check_engine_names(root):
    names = engine_names(root)
    if isinstance(names, str):
        return [names]
    bad = []
    for key, rel in sources(root):
        if key in ('engines', 'tests'):
            continue
        lines, literals = code_lines(read(root, rel))
        for n, lits in sorted(literals.items()):
            code = lines[n - 1]
            if not (COMPARE.search(code) or ENGINE_IDENT.search(code)):
                continue
            for lit in lits:
                if lit in names:
                    bad.append('%s:%d: names the engine "%s" as a string (%s is outside engines/; '
                               'use the engine table)' % (rel, n, lit, key))
    return bad


def system_headers(cc):
    """{name: directory} of the top-level headers in the compiler's #include <...> search list."""
    out = subprocess.run(list(cc) + ['-xc', '-E', '-v', '-'], input='', capture_output=True,
                         text=True)
    text = out.stderr + out.stdout
    m = re.search(r'#include <\.\.\.> search starts here:\n(.*?)\nEnd of search list', text, re.S)
    if out.returncode != 0 or not m:
        raise RuntimeError('%s -E -v printed no include search list (exit %d)'
                           % (' '.join(cc), out.returncode))
    found = {}
    for d in (line.strip().split(' (')[0] for line in m.group(1).splitlines()):
        if os.path.isdir(d):
            for name in sorted(os.listdir(d)):
                if name.endswith('.h') and name not in found:
                    found[name] = d
    return found


def check_libc_headers(root, system):
    """system: {header name: the directory that provides it}."""
    return ['%s: named like <%s> of the C library or compiler (%s/%s): with our -I list, a file '
            'that includes <%s> gets ours; rename it' % (rel, os.path.basename(rel),
                                                        system[os.path.basename(rel)],
                                                        os.path.basename(rel),
                                                        os.path.basename(rel))
            for _, rel in sources(root)
            if rel.endswith('.h') and os.path.basename(rel) in system]


def libraries(root, build):
    """[(archive, {object name: source relative to root})] of the static libraries meson built
    from engines/, reports/ and runner/ (BUILD/meson-info/intro-targets.json), or an error text."""
    info = os.path.join(build, 'meson-info', 'intro-targets.json')
    try:
        with open(info) as f:
            targets = json.load(f)
    except (OSError, ValueError) as e:
        return '%s: cannot read it (%s): is %s a meson build folder?' % (info, e, build)
    libs = []
    for t in targets:
        if t.get('type') != 'static library':
            continue
        here = os.path.dirname(os.path.realpath(t['defined_in']))
        objs = {}
        for group in t.get('target_sources', []):
            for src in group.get('sources', []):
                rel = os.path.relpath(os.path.realpath(src), os.path.realpath(root))
                if rel.split(os.sep)[0] not in CHECKED_TOPS:
                    continue
                objs[os.path.basename(src) + '.o'] = rel
                objs[os.path.relpath(src, here).replace(os.sep, '_') + '.o'] = rel
        if objs:
            libs.append((t['filename'][0], objs))
    if not libs:
        return '%s: no static library of %s/ (build first)' % (build, '/, '.join(CHECKED_TOPS))
    return libs


def symbol_uses(libs, nm):
    """({file: set of symbols it defines}, {file: set of symbols it uses}), or an error text."""
    defs, uses = {}, {}
    for archive, objs in libs:
        if not os.path.isfile(archive):
            return '%s: missing (build first)' % archive
        out = subprocess.run([nm, '-A', '-P', archive], capture_output=True, text=True)
        if out.returncode != 0:
            return '%s -A -P %s: %s' % (nm, archive, out.stderr.strip() or 'failed')
        for line in out.stdout.splitlines():
            m = NM_LINE.match(line)
            if not m:
                continue
            member, sym, kind = os.path.basename(m.group(2)), m.group(3), m.group(4)
            src = objs.get(member)
            if src is None:
                return '%s: cannot tell which source made its member %s' % (archive, member)
            if kind == 'U':
                uses.setdefault(src, set()).add(sym)
            elif kind in DEFINED:
                defs.setdefault(src, set()).add(sym)
    return defs, uses


def file_graph(defs, uses):
    """{file: {file it uses: symbols of that file it uses}}."""
    owner = {s: f for f, syms in defs.items() for s in syms}
    graph = {f: {} for f in set(defs) | set(uses)}
    for f, syms in uses.items():
        for s in syms:
            g = owner.get(s)
            if g and g != f:
                graph[f].setdefault(g, set()).add(s)
    return graph


def cycles(graph):
    """The groups of files that reach each other through uses (Tarjan's strongly connected
    components of more than one file), without recursion, each sorted, in a stable order."""
    index, low, on, stack, out = {}, {}, set(), [], []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on.add(start)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                group = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    group.append(w)
                    if w == v:
                        break
                if len(group) > 1:
                    out.append(sorted(group))
    return sorted(out)


def check_symbols(root, build, nm='nm'):
    libs = libraries(root, build)
    if isinstance(libs, str):
        return [libs]
    found = symbol_uses(libs, nm)
    if isinstance(found, str):
        return [found]
    graph = file_graph(*found)
    bad = []
    for group in cycles(graph):
        bad.append('%s use each other (a cycle): move what they share into a file of its own '
                   'that uses none of them' % ', '.join(group))
        for f in group:
            for g in sorted(set(graph[f]) & set(group)):
                bad.append('  %s uses %s of %s' % (f, ', '.join(sorted(graph[f][g])), g))
    key = {rel: k for k, rel in sources(root)}
    for f in sorted(graph):
        for g in sorted(graph[f]):
            if f in key and g in key and not may_use(key[f], key[g]):
                bad.append('%s uses %s of %s (%s may not use %s)'
                           % (f, ', '.join(sorted(graph[f][g])), g, key[f], key[g]))
    return bad


def run(bad, err=sys.stderr):
    """The exit code of a check's findings, which go to err."""
    for line in bad:
        print(line, file=err)
    return 1 if bad else 0


USAGE = ('usage: layering.py includes|engine-names ROOT | libc-headers ROOT -- CC... | '
         'symbols ROOT BUILD [--nm NM] | self-test [-- CC...]')


def main(argv):
    cmd, args = (argv[1], argv[2:]) if len(argv) > 1 else ('', [])
    cc = args[args.index('--') + 1:] if '--' in args else []
    args = args[:args.index('--')] if '--' in args else args
    if cmd == 'self-test' and not args:
        import layering_self_test
        return layering_self_test.main(cc or ['cc'])
    nm = 'nm'
    if cmd == 'symbols' and len(args) == 4 and args[2] == '--nm':
        nm, args = args[3], args[:2]
    want = {'includes': 1, 'engine-names': 1, 'libc-headers': 1, 'symbols': 2}
    if want.get(cmd) != len(args) or (cmd == 'libc-headers') != bool(cc):
        print(USAGE, file=sys.stderr)
        return 2
    root = args[0]
    missing = [d for d in CHECKED_TOPS if not os.path.isdir(os.path.join(root, d))]
    if missing:
        print('layering.py: %s has no %s/ (expected the source root)' % (root, missing[0]),
              file=sys.stderr)
        return 2
    if cmd == 'includes':
        return run(check_includes(root))
    if cmd == 'engine-names':
        return run(check_engine_names(root))
    if cmd == 'symbols':
        return run(check_symbols(root, args[1], nm))
    try:
        return run(check_libc_headers(root, system_headers(cc)))
    except (OSError, RuntimeError) as e:
        print('layering.py: %s' % e, file=sys.stderr)
        return 2


if __name__ == '__main__':
    sys.exit(main(sys.argv))
