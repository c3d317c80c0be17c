-- expect: respgen: --prefix '_Foo' starts with '_': C reserves such names (C11 7.1.3); start with a letter
-- flags: --prefix _Foo
-- status: 2
-- A prefix in the implementation's namespace (it used to be "not a C identifier", which it is).
command "X" {}
