-- Compare-and-PEXPIRE: sets KEYS[1]'s time to live to ARGV[2] ms only while it holds the token ARGV[1].
-- Returns 1 when extended, 0 when the key is gone or held by someone else.
if redis.call('get', KEYS[1]) == ARGV[1] then
    return redis.call('pexpire', KEYS[1], ARGV[2])
end
return 0
