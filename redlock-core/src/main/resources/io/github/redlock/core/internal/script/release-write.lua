-- Write unlock, one node. KEYS[1] writer key, KEYS[2] queued writers, KEYS[3] queue expiries. ARGV[1] token;
-- ARGV[2], if given, a channel to publish on where the key was deleted, so that waiters try again at once.
-- Deletes the writer key only while it holds this token, and withdraws the token from the queue (a writer
-- that gave up waiting no longer keeps readers out). Returns 1 when the key was deleted, else 0.
redis.call('zrem', KEYS[2], ARGV[1])
redis.call('zrem', KEYS[3], 'w:' .. ARGV[1])
if redis.call('get', KEYS[1]) == ARGV[1] then
    redis.call('del', KEYS[1])
    if ARGV[2] then
        redis.pcall('publish', ARGV[2], ARGV[1]) -- pcall: an ACL may forbid the channel
    end
    return 1
end
return 0
