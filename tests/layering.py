#!/usr/bin/env python3
"""The house's layering, checked on the source tree (the picture atop runner/meson.build).

    layering.py includes ROOT       every #include "x.h" in engines/, reports/, runner/ and
                                    tests/ runs the right way
    layering.py engine-names ROOT   no code outside engines/ names an engine as a string
    layering.py self-test           both checks fail on a small tree that breaks them (TAP)

A folder may include its own headers and those of the folders listed for it in ALLOWED;
runner's top files (main.c, cli.c, commands.c) may include anything, and nb_config.h (the
header meson generates) is allowed everywhere. Tests may include any header but an internal
one (NAME_int.h, shared by one module's files only). A violation is one line on stderr,
"FILE:LINE: includes X from FOLDER (FOLDER may not use it)"; the exit code is 1 when any
was found, 0 when none.

An engine name ("stream", "pps", "rr", "crr", "latency") is reported in runner/ and reports/
when its string literal stands on a line that compares strings (strcmp and kin) or mentions an
engine identifier (p->engine, is_engine, engine_names[]): what an engine is belongs in its
table. The same words as column names, unit suffixes or JSON keys are not engine names.
"""
import io
import os
import re
import sys
import tempfile

# Folder of a file (relative to ROOT) -> the folders it may include from (its own is implied).
FOLDERS = {
    'engines': 'engines',
    'engines/xdp': 'engines',
    'reports': 'reports',
    'runner/config': 'config',
    'runner/env': 'env',
    'runner/control': 'control',
    'runner/run': 'run',
    'runner': 'runner',
    'tests': 'tests',
}
ALLOWED = {
    'engines': set(),
    'reports': {'engines'},
    'config': {'engines'},
    'env': {'reports', 'engines'},
    # The control plane carries resolved engine parameters, never the config language:
    # nothing in control/ includes config/ today and its meson library does not depend on it.
    'control': {'env', 'reports', 'engines'},
    'run': {'control', 'config', 'env', 'reports', 'engines'},
    'runner': None,  # main.c, cli.c, commands.c: anything
    'tests': None,   # anything public: never an internal header (NAME_int.h)
}
ANYWHERE = {'nb_config.h'}
ENGINE_NAMES = ('stream', 'pps', 'rr', 'crr', 'latency')

INCLUDE = re.compile(r'^\s*#\s*include\s*"([^"]+)"')
TOKENS = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
COMPARE = re.compile(r'\b(?:str(?:n)?(?:case)?cmp|memcmp)\s*\(')
ENGINE_IDENT = re.compile(r'\w*engine\w*', re.I)


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
    d = os.path.dirname(rel)
    return FOLDERS.get(d)


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
    """runner/ sub-folders the table does not know: their includes would go unchecked."""
    top = os.path.join(root, 'runner')
    subs = sorted(os.listdir(top)) if os.path.isdir(top) else []
    return ['runner/%s: a folder the layering does not know (add it to tests/layering.py)' % d
            for d in subs if os.path.isdir(os.path.join(top, d)) and 'runner/' + d not in FOLDERS]


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
                elif where != key and ALLOWED[key] is not None and where not in ALLOWED[key]:
                    bad.append('%s:%d: includes %s from %s (%s may not use it)'
                               % (rel, n, target, where, key))
                elif key == 'tests' and target.endswith('_int.h'):
                    bad.append('%s:%d: includes %s, an internal header of %s (test through its '
                               'public header)' % (rel, n, target, where))
    return bad


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


def check_engine_names(root):
    bad = []
    for key, rel in sources(root):
        if key in ('engines', 'tests'):
            continue
        with open(os.path.join(root, rel), encoding='utf-8', errors='replace') as f:
            lines, literals = code_lines(f.read())
        for n, lits in sorted(literals.items()):
            code = lines[n - 1]
            if not (COMPARE.search(code) or ENGINE_IDENT.search(code)):
                continue
            for lit in lits:
                if lit in ENGINE_NAMES:
                    bad.append('%s:%d: names the engine "%s" as a string (%s is outside engines/; '
                               'use the engine table)' % (rel, n, lit, key))
    return bad


CHECKS = {'includes': check_includes, 'engine-names': check_engine_names}


def run(check, root, err=sys.stderr):
    """The exit code of one check; its findings go to err."""
    bad = CHECKS[check](root)
    for line in bad:
        print(line, file=err)
    return 1 if bad else 0


def write(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)


# A tree that keeps every rule, including words that look like engine names but are not.
GOOD = {
    'engines/error.h': '#pragma once\n',
    'engines/sock.c': '#include "error.h"\n#include "nb_config.h"\n',
    'engines/registry.c': 'int g(const char *engine) { return !strcmp(engine, "stream"); }\n',
    'reports/csv.h': '#include "error.h"\n',
    'reports/csv.c': '#include "csv.h"\n'
                     'static const char *col = "stream"; /* a column: strcmp(engine, "pps") */\n',
    'runner/config/plan.h': '#include "error.h"\n',
    'runner/control/ctl.h': '#include "csv.h"\n',
    'runner/run/run.h': '\n',
    'runner/run/run.c': '#include "plan.h"\n#include "ctl.h"\n'
                        'static const char *unit = rate_pps ? "pps" : "bit/s";\n',
    'runner/main.c': '#include "run.h"\n#include "ctl.h"\n',
    'tests/test_rr.c': '#include "plan.h"\nint h(const char *engine) { return !strcmp(engine, "rr"); }\n',
}
BAD_INCLUDES = {
    'engines/sock.c': '#include "error.h"\n#include "csv.h"\n',
    'reports/csv.c': '#include "csv.h"\n#include "../runner/run/run.h"\n',
    'runner/control/ctl.c': '#include <stdio.h>\n\n#include "plan.h"\n',
    'runner/config/units.c': '#include "nowhere.h"\n',
    'runner/stats/mean.c': '#include "csv.h"\n',
    'reports/csv_int.h': '\n',
    'tests/test_csv.c': '#include "csv.h"\n#include "csv_int.h"\n',
}
BAD_INCLUDES_SAID = [
    'engines/sock.c:2: includes csv.h from reports (engines may not use it)',
    'reports/csv.c:2: includes ../runner/run/run.h from run (reports may not use it)',
    'runner/config/units.c:1: includes nowhere.h, a header that does not exist',
    'runner/control/ctl.c:3: includes plan.h from config (control may not use it)',
    'runner/stats: a folder the layering does not know (add it to tests/layering.py)',
    'tests/test_csv.c:2: includes csv_int.h, an internal header of reports (test through its '
    'public header)',
]
BAD_NAMES = {
    'reports/csv.c': 'int f(const char *e)\n{\n\treturn strcmp(e, "crr") == 0 ||\n'
                     '\t       p->engine == "pps";\n}\n'
                     'static const char *const engine_names[] = { "rr", "latency" };\n',
    'runner/run/run.c': '/* "stream" */\nbool b = is_engine(p, "stream");\n',
}
BAD_NAMES_SAID = [
    'reports/csv.c:%d: names the engine "%s" as a string (reports is outside engines/; use the '
    'engine table)' % lit for lit in ((3, 'crr'), (4, 'pps'), (6, 'rr'), (6, 'latency'))
] + ['runner/run/run.c:2: names the engine "stream" as a string (run is outside engines/; use '
     'the engine table)']


def tree(files):
    """A temporary source tree: GOOD with files laid over it."""
    d = tempfile.TemporaryDirectory(prefix='nbt_layering_')
    write(d.name, GOOD)
    write(d.name, files)
    return d


def self_test():
    """The checks catch what they promise: a tree that keeps the rules, then one that breaks each."""
    quiet = io.StringIO()
    with tree({}) as good, tree(BAD_INCLUDES) as bad_inc, tree(BAD_NAMES) as bad_names:
        return tap([
            ('a tree that keeps the rules passes both checks',
             check_includes(good) + check_engine_names(good), []),
            ('wrong-way includes are named with file, line and folder',
             sorted(check_includes(bad_inc)), sorted(BAD_INCLUDES_SAID)),
            ('engine names compared or listed outside engines/ are named',
             sorted(check_engine_names(bad_names)), sorted(BAD_NAMES_SAID)),
            ('exit codes: 0 when clean, 1 when a rule is broken',
             [run(c, r, quiet) for c, r in (('includes', good), ('engine-names', good),
                                             ('includes', bad_inc), ('engine-names', bad_names))],
             [0, 0, 1, 1]),
            ('each broken tree breaks only its own rule',
             check_engine_names(bad_inc) + check_includes(bad_names), []),
        ])


def tap(cases):
    print('1..%d' % len(cases))
    failed = 0
    for i, (name, got, want) in enumerate(cases, 1):
        if got == want:
            print('ok %d - %s' % (i, name))
            continue
        failed = 1
        print('not ok %d - %s' % (i, name))
        print('# got:  %s\n# want: %s' % (got, want))
    return failed


def main(argv):
    if len(argv) == 2 and argv[1] == 'self-test':
        return self_test()
    if len(argv) != 3 or argv[1] not in CHECKS:
        print('usage: layering.py includes|engine-names ROOT | self-test', file=sys.stderr)
        return 2
    missing = [d for d in ('engines', 'reports', 'runner') if not os.path.isdir(os.path.join(argv[2], d))]
    if missing:
        print('layering.py: %s has no %s/ (expected the source root)' % (argv[2], missing[0]),
              file=sys.stderr)
        return 2
    return run(argv[1], argv[2])


if __name__ == '__main__':
    sys.exit(main(sys.argv))
