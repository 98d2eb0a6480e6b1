-- Compare-and-delete of a lock on several keys, one node: deletes each of its n keys that still holds this
-- client's token ARGV[1]. KEYS: the n keys; when ARGV[2 ..] names the channel of each key, then also the n hashes
-- of who waits for each (as release.lua's KEYS[2]). Where it deleted KEYS[i] and another client waits for it,
-- publishes the token on its channel ARGV[i + 1], so that waiters for that key try again at once. Returns 1 when
-- every key was deleted, else 0.
local n = #KEYS
local publishing = #ARGV > 1
if publishing then
    n = #ARGV - 1
    if #KEYS ~= 2 * n then
        return redis.error_reply('release-multi: ' .. n .. ' channels need ' .. (2 * n) .. ' keys, got ' .. #KEYS)
    end
end
local all = 1
for i = 1, n do
    if redis.call('get', KEYS[i]) == ARGV[1] then
        redis.call('del', KEYS[i])
        if publishing and redis.call('exists', KEYS[n + i]) == 1 then
            redis.pcall('publish', ARGV[i + 1], ARGV[1]) -- pcall: an ACL may forbid the channel
        end
    else
        all = 0
    end
end
return all
