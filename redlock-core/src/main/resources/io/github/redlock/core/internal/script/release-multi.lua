-- Compare-and-delete of a lock on several keys, one node: deletes each of KEYS that still holds this client's
-- token ARGV[1]; where it deleted KEYS[i] and ARGV[i + 1] names a channel, publishes the token on it, so that
-- waiters for that key try again at once. Returns 1 when every key was deleted, else 0.
local all = 1
for i = 1, #KEYS do
    if redis.call('get', KEYS[i]) == ARGV[1] then
        redis.call('del', KEYS[i])
        if ARGV[i + 1] then
            redis.pcall('publish', ARGV[i + 1], ARGV[1]) -- pcall: an ACL may forbid the channel
        end
    else
        all = 0
    end
end
return all
