-- expect: respgen: --prefix '2fa' starts with a digit, as no C identifier can
-- flags: --prefix 2fa
-- status: 2
command "X" {}
