-- expect: respgen: --prefix 'mycompany_redis_' ends in '_': respgen adds it itself (--prefix mycompany_redis)
-- flags: --prefix mycompany_redis_
-- status: 2
command "X" {}
