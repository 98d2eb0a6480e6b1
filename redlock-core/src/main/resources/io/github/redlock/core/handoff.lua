-- Hands an exclusive lock from a holder to the next holder of the same client in one step, on one node, unless
-- another client waits for it here. KEYS[1] the lock's key. ARGV[1] the releasing holder's token, ARGV[2] the next
-- holder's token, ARGV[3] the next holder's ttl ms, ARGV[4] the lock's release channel, ARGV[5] how many of that
-- channel's subscribers on this node are the releasing client's own (0 or 1).
-- While the key holds ARGV[1]: when nobody else is subscribed to the channel, sets the key to ARGV[2] with that ttl
-- (the key is never free in between, so no other client can take it) and returns 1; when another client waits
-- (subscribed), releases as release.lua does (deletes the key, publishes ARGV[1]) and returns 2, so that handoffs
-- within one client never starve the others. Returns 0 when the key is gone or held by someone else.
if redis.replicate_commands then redis.replicate_commands() end
if redis.call('get', KEYS[1]) ~= ARGV[1] then
    return 0
end
local counted = redis.pcall('pubsub', 'numsub', ARGV[4]) -- pcall: an ACL may forbid it; then others may wait
local others = 1
if type(counted) == 'table' and counted[2] then
    others = tonumber(counted[2]) - tonumber(ARGV[5])
end
if others > 0 then
    redis.call('del', KEYS[1])
    redis.pcall('publish', ARGV[4], ARGV[1])
    return 2
end
redis.call('set', KEYS[1], ARGV[2], 'PX', ARGV[3])
return 1
