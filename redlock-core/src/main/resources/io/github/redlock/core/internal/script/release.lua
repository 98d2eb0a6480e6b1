-- Compare-and-delete: deletes KEYS[1] only while it still holds this client's token ARGV[1]. Where it deleted
-- the key, ARGV[2] names a channel and KEYS[2] (the hash of who waits for the key, written by cleanup.lua where
-- another client's attempt was refused) exists, publishes the token on it, so that waiters try again at once (each
-- node publishes: the token lets a waiter count one release once). Nobody waits elsewhere without that hash: a
-- release that nobody waits for publishes nothing, which on a Redis Cluster node would cross every server's bus.
-- Returns 1 when deleted, 0 when the key is gone or held by someone else.
if redis.call('get', KEYS[1]) == ARGV[1] then
    redis.call('del', KEYS[1])
    if ARGV[2] and KEYS[2] and redis.call('exists', KEYS[2]) == 1 then
        redis.pcall('publish', ARGV[2], ARGV[1]) -- pcall: an ACL may forbid the channel
    end
    return 1
end
return 0
