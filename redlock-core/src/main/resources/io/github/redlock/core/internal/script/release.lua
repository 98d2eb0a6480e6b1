-- Compare-and-delete: deletes KEYS[1] only while it still holds this client's token ARGV[1]. Where it deleted
-- the key and ARGV[2] names a channel, publishes the token on it, so that waiters try again at once (each
-- node publishes: the token lets a waiter count one release once).
-- Returns 1 when deleted, 0 when the key is gone or held by someone else.
if redis.call('get', KEYS[1]) == ARGV[1] then
    redis.call('del', KEYS[1])
    if ARGV[2] then
        redis.pcall('publish', ARGV[2], ARGV[1]) -- pcall: an ACL may forbid the channel
    end
    return 1
end
return 0
