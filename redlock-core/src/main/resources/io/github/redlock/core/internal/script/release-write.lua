-- Write unlock, one node. KEYS[1] writer key, KEYS[2] queued writers, KEYS[3] queue expiries. ARGV[1] token;
-- ARGV[2], if given with KEYS[4] (queued readers), a channel to publish on where the key was deleted and a reader or
-- another writer is queued, so that waiters try again at once (a refused reader or writer queues in the script that
-- refuses it; with none queued, nobody waits for this release).
-- Deletes the writer key only while it holds this token, and withdraws the token from the queue (a writer
-- that gave up waiting no longer keeps readers out). Returns 1 when the key was deleted, else 0.
redis.call('zrem', KEYS[2], ARGV[1])
redis.call('zrem', KEYS[3], 'w:' .. ARGV[1])
if redis.call('get', KEYS[1]) == ARGV[1] then
    redis.call('del', KEYS[1])
    if ARGV[2] and KEYS[4] and (redis.call('zcard', KEYS[2]) > 0 or redis.call('zcard', KEYS[4]) > 0) then
        redis.pcall('publish', ARGV[2], ARGV[1]) -- pcall: an ACL may forbid the channel
    end
    return 1
end
return 0
