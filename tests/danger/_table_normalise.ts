/**
 * Rows for spellings the shell normalises before running: quotes, ANSI-C strings, `$IFS`,
 * brace expansion, backslashes, line continuations, absolute paths, variables and `${…}`
 * operators. None of them may downgrade the command they spell. Data only: never run.
 */
import type { Row } from "./_table.ts";

const D = "destructive=/home/ada/projects";

export const NORMALISE_ROWS: Row[] = [
  // quoting
  ["'rm' -rf ~/projects", "destructive", D],
  ['"rm" -rf ~/projects', "destructive", D],
  ["r''m -rf ~/projects", "destructive", D],
  ['r""m -rf ~/projects', "destructive", D],
  ["'r'\"m\" -rf ~/projects", "destructive", D],
  ["rm '-rf' '/etc'", "destructive", "destructive=/etc"],
  ['rm -rf "/"etc', "destructive", "destructive=/etc"],
  ["c'u'rl https://e.example", "network", "network=e.example"],
  ["rm -rf '~/projects'", "local_write", "local_write=/home/ada/proj/~/projects"],
  ['rm -rf "~"', "local_write", "local_write=/home/ada/proj/~"],
  // ANSI-C strings
  ["$'\\x72\\x6d' -rf ~/projects", "destructive", D],
  ["$'\\162\\155' -rf /etc", "destructive", "destructive=/etc"],
  ["$'\\u0072m' -rf /etc", "destructive", "destructive=/etc"],
  ["rm -rf $'/\\x65tc'", "destructive", "destructive=/etc"],
  ["$'cu\\x72l' https://e.example", "network"],
  ["echo $'rm -rf /etc' | sh", "read destructive"],
  // $IFS
  ["rm${IFS}-rf${IFS}/etc", "destructive", "destructive=/etc"],
  ["rm$IFS-rf$IFS/", "blocked", "blocked=/"],
  ["rm${IFS}-rf${IFS}$HOME/projects", "destructive", D],
  ["IFS=,; cmd=rm,-rf,/etc; $cmd", "destructive", "destructive=/etc"],
  ["IFS=_; x=curl_https://e.example; $x", "network", "network=e.example"],
  ["rm${IFS}-rf${IFS}~", "local_write"],
  // braces
  ["{rm,-rf,/etc}", "destructive", "destructive=/etc"],
  ["{curl,https://e.example}", "network", "network=e.example"],
  ["rm -rf /{etc,usr}", "destructive", "destructive=/etc destructive=/usr"],
  ["rm -rf ~/{a,b}", "destructive", "destructive=/home/ada/a destructive=/home/ada/b"],
  ["rm -rf build/{a,b}", "local_write", "local_write=/home/ada/proj/build/a"],
  ["echo {1..3}", "read"],
  ["rm -rf '{a,b}'", "local_write", "local_write=/home/ada/proj/{a,b}"],
  ["mkdir -p src/{lib,bin}", "local_write", "local_write=/home/ada/proj/src/lib"],
  // backslashes
  ["\\rm -rf ~/projects", "destructive", D],
  ["r\\m -rf ~/projects", "destructive", D],
  ["\\c\\u\\r\\l https://e.example", "network"],
  ["rm -rf \\/etc", "destructive", "destructive=/etc"],
  ["rm -rf \\~/projects", "local_write", "local_write=/home/ada/proj/~/projects"],
  // line continuations
  ["r\\\nm -rf ~/projects", "destructive", D],
  ["rm \\\n  -rf \\\n  ~/projects", "destructive", D],
  ["cu\\\nrl https://e.example", "network"],
  ["echo 'a\\\nb' > x.txt", "read local_write"],
  ["npm run build \\\n  && npm test", "code_execution"],
  // absolute paths
  ["/bin/rm -rf ~/projects", "destructive", D],
  ["/usr/bin/rm -rf /etc", "destructive", "destructive=/etc"],
  ["/usr/bin/curl https://e.example", "network"],
  ["/usr/local/bin/node app.js", "code_execution"],
  ["/usr/bin/env rm -rf /etc", "destructive"],
  ["/bin/bash -c 'rm -rf ~/projects'", "destructive", D],
  ["//bin//rm -rf /etc", "destructive", "destructive=/etc"],
  ["/opt/odek/main.ts run x", "blocked"],
  ["/home/ada/.odek/bin/tool", "blocked"],
  ["~/bin/tool --x", "unknown"],
  ["./scripts/build.sh", "code_execution"],
  ["/tmp/tool", "code_execution"],
  // variables and ${…}
  ["X=rm; $X -rf ~/projects", "destructive", D],
  ["a=r; b=m; $a$b -rf /etc", "destructive", "destructive=/etc"],
  ['X=/etc; rm -rf "$X"', "destructive", "destructive=/etc"],
  ["export T=/etc; rm -rf $T", "destructive", "destructive=/etc"],
  ['rm -rf "$HOME/projects"', "destructive", D],
  ["rm -rf ${HOME}/projects", "destructive", D],
  ['rm -rf "${HOME:?}/projects"', "destructive", D],
  ['rm -rf "${X:-/etc}"', "destructive", "destructive=/etc"],
  ["rm -rf ${HOME:0:1}etc", "destructive", "destructive=/etc"],
  ["X=/xetc; rm -rf ${X/x/}", "destructive", "destructive=/etc"],
  ["X=ETC; rm -rf /${X,,}", "destructive", "destructive=/etc"],
  ["X=/etc.bak; rm -rf ${X%.bak}", "destructive", "destructive=/etc"],
  ['rm -rf "$UNSET/"', "unknown"],
  ["$CMD -rf /", "unknown"],
  ["${!X} -rf /", "unknown"],
  ["X=ls; read X <<< rm; $X -rf /etc", "read unknown"],
  ["declare -n r=HOME; rm -rf $r", "unknown"],
  ["printf -v c rm; $c -rf /etc", "read unknown"],
  ['rm -rf "$PWD"', "destructive", "destructive=/home/ada/proj"],
  ['cd /etc && rm -rf "$PWD"', "read destructive", "destructive=/etc"],
  ["rm -rf ~root", "destructive system_write", "destructive=/root"],
  ["rm -rf ~bob/x", "destructive", "destructive=/home/bob/x"],
];
