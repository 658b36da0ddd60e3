"""`layering.py self-test`: each check of tests/layering.py passes a small tree that keeps its
rule and fails, naming file, line or symbol, on one that breaks it (TAP). The symbol checks run
on objects and archives built here with the real compiler, ar and nm, described as meson
describes its own (meson-info/intro-targets.json)."""
import io
import json
import os
import subprocess
import tempfile

import layering as L

# A tree that keeps every rule, including words that look like engine names but are not.
GOOD = {
    'engines/nb_error.h': '#pragma once\n',
    'engines/sock.c': '#include "nb_error.h"\n#include "nb_config.h"\n',
    'engines/registry.c': 'static const struct nb_engine *engines[4] = {\n\t&nb_engine_stream,\n'
                          '\t&nb_engine_icmp, NULL,\n};\n'
                          'int g(const char *engine) { return !strcmp(engine, "stream"); }\n',
    'engines/stream.c': 'const struct nb_engine nb_engine_stream = {\n\t.name = "stream",\n};\n',
    'engines/icmp.c': 'const struct nb_engine nb_engine_icmp = {\n\t.name = "icmp", /* ping */\n'
                      '};\n',
    'reports/base/csv.h': '#include "nb_error.h"\n',
    'reports/base/csv.c': '#include "csv.h"\n'
                          'static const char *col = "stream"; /* strcmp(engine, "pps") */\n',
    'reports/files/runs.c': '#include "csv.h"\n'
                            'int t(const char *p) { return !strcmp(p, "tcp"); }\n',
    'reports/report/md.c': '#include "csv.h"\nint is_pps(const char *engine) { '
                           'return !strcmp(engine, "pps"); } /* not in this registry */\n',
    'runner/config/plan.h': '#include "nb_error.h"\n',
    'runner/control/ctl.h': '#include "csv.h"\n',
    'runner/run/run.h': '\n',
    'runner/run/run.c': '#include "plan.h"\n#include "ctl.h"\n'
                        'static const char *unit = rate_pps ? "pps" : "bit/s";\n',
    'runner/main.c': '#include "run.h"\n#include "ctl.h"\n',
    'tests/test_rr.c': '#include "plan.h"\n'
                       'int h(const char *engine) { return !strcmp(engine, "icmp"); }\n',
}
BAD_INCLUDES = {
    'engines/sock.c': '#include "nb_error.h"\n#include "csv.h"\n',
    'reports/base/csv.c': '#include "csv.h"\n#include "../../runner/run/run.h"\n',
    'reports/report/chart.h': '\n',
    'reports/files/runs.c': '#include "csv.h"\n#include "chart.h"\n',
    'reports/stray.c': '\n',
    'runner/control/ctl.c': '#include <stdio.h>\n\n#include "plan.h"\n',
    'runner/config/units.c': '#include "nowhere.h"\n',
    'runner/stats/mean.c': '#include "csv.h"\n',
    'reports/base/csv_int.h': '\n',
    'tests/test_csv.c': '#include "csv.h"\n#include "csv_int.h"\n',
    'engines/latency_int.h': '\n',
    'runner/run/rows.c': '#include "latency_int.h"\n',
}
BAD_INCLUDES_SAID = [
    'engines/sock.c:2: includes csv.h from base (engines may not use it)',
    'reports/base/csv.c:2: includes ../../runner/run/run.h from run (base may not use it)',
    'reports/files/runs.c:2: includes chart.h from report (files may not use it)',
    'reports: a folder the layering does not know (add it to tests/layering.py)',
    'runner/config/units.c:1: includes nowhere.h, a header that does not exist',
    'runner/control/ctl.c:3: includes plan.h from config (control may not use it)',
    'runner/stats: a folder the layering does not know (add it to tests/layering.py)',
    'tests/test_csv.c:2: includes csv_int.h, an internal header of base (test through its '
    'public header)',
    'runner/run/rows.c:1: includes latency_int.h, an internal header of engines (use its public '
    'header)',
]
BAD_NAMES = {
    'reports/base/csv.c': 'int f(const char *e)\n{\n\treturn strcmp(e, "icmp") == 0 ||\n'
                          '\t       p->engine == "stream";\n}\n'
                          'static const char *const engine_names[] = { "icmp", "stream" };\n',
    'runner/run/run.c': '/* "stream" */\nbool b = is_engine(p, "icmp");\n',
}
BAD_NAMES_SAID = [
    'reports/base/csv.c:%d: names the engine "%s" as a string (base is outside engines/; use the '
    'engine table)' % lit for lit in ((3, 'icmp'), (4, 'stream'), (6, 'icmp'), (6, 'stream'))
] + ['runner/run/run.c:2: names the engine "icmp" as a string (run is outside engines/; use '
     'the engine table)']
NO_REGISTRY = {'engines/registry.c': 'const struct nb_engine *nb_engine_list(void);\n'}
NO_NAME = {'engines/icmp.c': 'const struct nb_engine nb_engine_icmp = {\n\t.summary = "x",\n};\n'}
BAD_LIBC = {'runner/control/limits.h': '\n', 'engines/error.h': '\n', 'tests/stdio.h': '\n'}
SYSTEM = {'limits.h': '/sys/gcc', 'error.h': '/sys/include', 'stdio.h': '/sys/include'}
BAD_LIBC_SAID = [
    '%s: named like <%s> of the C library or compiler (%s/%s): with our -I list, a file that '
    'includes <%s> gets ours; rename it' % (rel, name, SYSTEM[name], name, name)
    for rel, name in (('engines/error.h', 'error.h'), ('runner/control/limits.h', 'limits.h'),
                      ('tests/stdio.h', 'stdio.h'))
]

# Objects: what each file defines and uses. GOOD_OBJ keeps the rules (base -> engines,
# files -> base); the broken ones add files that use each other or the wrong way.
GOOD_OBJ = {
    'engines/e.c': 'int nb_e(void) { return 1; }\n',
    'reports/base/a.c': 'int nb_e(void);\nint nb_a(void) { return nb_e(); }\n',
    'reports/files/b.c': 'int nb_a(void);\nextern const int nb_rows[];\n'
                         'int nb_b(void) { return nb_a() + nb_rows[0]; }\n',
    'reports/files/rows.c': 'const int nb_rows[2] = { 1, 2 };\n',
}
BAD_CYCLES = {
    'reports/files/x.c': 'int nb_y(void);\nint nb_x(void) { return nb_y(); }\n',
    'reports/files/y.c': 'int nb_x(void);\nint nb_y(void) { return nb_x() + 1; }\n',
    'runner/run/p.c': 'int nb_q(void);\nint nb_p(void) { return nb_q(); }\n',
    'runner/run/q.c': 'int nb_r(void);\nint nb_q(void) { return nb_r(); }\n',
    'runner/run/r.c': 'int nb_p(void);\nint nb_r2(void);\nint nb_r(void) { return nb_p(); }\n'
                      'int nb_r2(void) { return nb_p() + 1; }\n',
}
BAD_CYCLES_SAID = [
    'reports/files/x.c, reports/files/y.c use each other (a cycle): move what they share into a '
    'file of its own that uses none of them',
    '  reports/files/x.c uses nb_y of reports/files/y.c',
    '  reports/files/y.c uses nb_x of reports/files/x.c',
    'runner/run/p.c, runner/run/q.c, runner/run/r.c use each other (a cycle): move what they '
    'share into a file of its own that uses none of them',
    '  runner/run/p.c uses nb_q of runner/run/q.c',
    '  runner/run/q.c uses nb_r of runner/run/r.c',
    '  runner/run/r.c uses nb_p of runner/run/p.c',
]
BAD_UPWARD = {
    'reports/base/c.c': 'int nb_b(void);\nint nb_c(void) { return nb_b(); }\n',
    'engines/f.c': 'int nb_c(void);\nint nb_a(void);\nint nb_f(void) { return nb_c() + nb_a(); }\n',
}
BAD_UPWARD_SAID = [
    'engines/f.c uses nb_a of reports/base/a.c (engines may not use base)',
    'engines/f.c uses nb_c of reports/base/c.c (engines may not use base)',
    'reports/base/c.c uses nb_b of reports/files/b.c (base may not use files)',
]


def write(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w', encoding='utf-8') as f:
            f.write(text)


def tree(*layers):
    """A temporary source tree: the layers written one over the other."""
    d = tempfile.TemporaryDirectory(prefix='nbt_layering_')
    for files in layers:
        write(d.name, files)
    return d


def build(cc, root, files):
    """Compile files (a tree of objects) into one static library per folder under root/build,
    the first one a thin archive as meson makes them, the others whole; describe them in
    build/meson-info/intro-targets.json."""
    out = os.path.join(root, 'build')
    folders = sorted({os.path.dirname(rel) for rel in files})
    targets = []
    for i, folder in enumerate(folders):
        lib = os.path.join(out, folder, 'libt%d.a' % i)
        objdir = lib + '.p'
        os.makedirs(objdir)
        srcs = [os.path.join(root, rel) for rel in sorted(files) if os.path.dirname(rel) == folder]
        objs = []
        for src in srcs:
            objs.append(os.path.join(objdir, os.path.basename(src) + '.o'))
            subprocess.run(list(cc) + ['-c', src, '-o', objs[-1]], check=True)
        subprocess.run(['ar', 'rcsT' if i == 0 else 'rcs', lib] + objs, check=True)
        targets.append({'type': 'static library', 'filename': [lib],
                        'defined_in': os.path.join(root, folder, 'meson.build'),
                        'target_sources': [{'sources': srcs}]})
    targets.append({'type': 'executable', 'filename': [os.path.join(out, 'x')]})
    os.makedirs(os.path.join(out, 'meson-info'))
    with open(os.path.join(out, 'meson-info', 'intro-targets.json'), 'w') as f:
        json.dump(targets, f)
    return out


def symbols_of(cc, *layers):
    """The symbol check's findings on a tree built from the layers of objects."""
    files = {}
    for layer in layers:
        files.update(layer)
    with tree(files) as root:
        return L.check_symbols(root, build(cc, root, files))


def compiler_finds(cc):
    try:
        found = L.system_headers(cc)
    except (OSError, RuntimeError) as e:
        return str(e)
    return sorted(n for n in ('limits.h', 'stdio.h', 'stddef.h') if n in found)


def main(cc):
    quiet = io.StringIO()
    with tree(GOOD) as good, tree(GOOD, BAD_INCLUDES) as bad_inc, \
            tree(GOOD, BAD_NAMES) as bad_names, tree(GOOD, NO_REGISTRY) as no_reg, \
            tree(GOOD, NO_NAME) as no_name, tree(GOOD, BAD_LIBC) as bad_libc:
        good_all = (L.check_includes(good) + L.check_engine_names(good) +
                    L.check_libc_headers(good, SYSTEM))
        return tap([
            ('a tree that keeps the rules passes the source checks', good_all, []),
            ('wrong-way includes and unknown folders are named with file, line and folders',
             sorted(L.check_includes(bad_inc)), sorted(BAD_INCLUDES_SAID)),
            ('engine names compared or listed outside engines/ are named, icmp too',
             sorted(L.check_engine_names(bad_names)), sorted(BAD_NAMES_SAID)),
            ('the engine names come from the registry: one that lists none is an error',
             L.check_engine_names(no_reg) + L.check_engine_names(no_name),
             ['engines/registry.c: no engine listed in its engines[] array',
              'engines/: no table with a .name for nb_engine_icmp (listed in engines/registry.c)']),
            ('headers named like the C library\'s are named with the header they hide',
             L.check_libc_headers(bad_libc, SYSTEM), BAD_LIBC_SAID),
            ('the compiler\'s search list holds the C library\'s and its own headers',
             compiler_finds(cc), ['limits.h', 'stddef.h', 'stdio.h']),
            ('objects that keep the rules pass the symbol check', symbols_of(cc, GOOD_OBJ), []),
            ('files that use each other are named with the symbols that tie them',
             symbols_of(cc, GOOD_OBJ, BAD_CYCLES), BAD_CYCLES_SAID),
            ('a use of a folder a file may not use is named with its symbols',
             symbols_of(cc, GOOD_OBJ, BAD_UPWARD), BAD_UPWARD_SAID),
            ('a folder that is not a meson build is an error, not a pass',
             [line.split(':')[0][-len('intro-targets.json'):]
              for line in L.check_symbols(good, os.path.join(good, 'nowhere'))],
             ['intro-targets.json']),
            ('exit codes: 0 when clean, 1 when a rule is broken',
             [L.run(bad, quiet) for bad in (good_all, L.check_includes(bad_inc),
                                            L.check_engine_names(bad_names),
                                            L.check_libc_headers(bad_libc, SYSTEM))],
             [0, 1, 1, 1]),
            ('each broken tree breaks only its own rule',
             L.check_engine_names(bad_inc) + L.check_includes(bad_names) +
             L.check_includes(bad_libc) + L.check_libc_headers(bad_inc, SYSTEM), []),
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
