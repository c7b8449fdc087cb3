// GramJS (npm `telegram` 2.26, layer 198) driven over the line protocol of driver.mjs.
// GRAMJS_TRANSPORT=tcp: TCP full, GramJS's default in Node. GRAMJS_TRANSPORT=ws: what
// GramJS does in a browser: obfuscated abridged over WebSocket (ws://host:port/apiws).
// GramJS dials port 80/443 whatever the session says, so the connection classes below pin
// the test server's address; its key goes into GramJS's key table (TELESRV_KEY_*).
import { createRequire } from 'node:module'

import { serve } from './driver.mjs'

const require = createRequire(import.meta.url)
const bigInt = require('big-integer')
const { TelegramClient, Api } = require('telegram')
const { StringSession } = require('telegram/sessions')
const { ConnectionTCPFull, ConnectionTCPObfuscated } = require('telegram/network')
const { PromisedNetSockets, PromisedWebSockets } = require('telegram/extensions')
const { NewMessage } = require('telegram/events')
const { EditedMessage } = require('telegram/events/EditedMessage')
const { DeletedMessage } = require('telegram/events/DeletedMessage')
const RSA = require('telegram/crypto/RSA')

const env = process.env
const HOST = env.TELESRV_HOST
const PORT = Number(env.TELESRV_PORT)
const overWs = env.GRAMJS_TRANSPORT === 'ws'

RSA._serverKeys.set(env.TELESRV_KEY_FINGERPRINT, { n: bigInt(env.TELESRV_KEY_N), e: Number(env.TELESRV_KEY_E) })

class LocalTcp extends ConnectionTCPFull {
    constructor(params) { super({ ...params, ip: HOST, port: PORT }) }
}
class LocalWs extends ConnectionTCPObfuscated {
    constructor(params) { super({ ...params, ip: HOST, port: PORT }) }
}

let client
let saved = ''
const chats = new Map() // marked id -> input entity
const channelPts = new Map() // marked id -> pts when going offline
let push

function makeClient() {
    const session = new StringSession(saved)
    const c = new TelegramClient(session, Number(env.TELESRV_API_ID), env.TELESRV_API_HASH, {
        connection: overWs ? LocalWs : LocalTcp,
        networkSocket: overWs ? PromisedWebSockets : PromisedNetSockets,
        connectionRetries: 1,
        autoReconnect: false,
        timeout: 10,
    })
    c.setLogLevel(env.GRAMJS_LOG_LEVEL ?? 'warn')
    // The connection classes pin the real port; StringSession.save() cannot store a port
    // above 32767 (it writes a signed 16-bit number), so the session keeps a dummy one.
    c.session.setDC(2, HOST, 443)
    c.addEventHandler(e => push({ kind: 'new', id: e.message.id, text: e.message.message }), new NewMessage({}))
    c.addEventHandler(e => push({ kind: 'edit', id: e.message.id, text: e.message.message }), new EditedMessage({}))
    c.addEventHandler(e => push({ kind: 'delete', ids: e.deletedIds }), new DeletedMessage({}))
    c.addEventHandler(u => {
        if (u instanceof Api.UpdateMessagePoll) push({ kind: 'poll', poll_id: u.pollId.toString(), ...pollView(u.results) })
    })
    return c
}

function pollView(results) {
    return {
        total: results.totalVoters ?? null,
        counts: (results.results ?? []).map(r => r.voters),
        chosen: (results.results ?? []).filter(r => r.chosen).map(r => r.option[0] - 48),
        correct: (results.results ?? []).filter(r => r.correct).map(r => r.option[0] - 48),
    }
}

const marked = chat => `-100${chat.id.toString()}`
const entity = async id => chats.get(String(id)) ?? client.getInputEntity(String(id))

function fromDiff(messages, others) {
    for (const m of messages) if (m instanceof Api.Message) push({ kind: 'new', id: m.id, text: m.message })
    for (const u of others) {
        if (u instanceof Api.UpdateEditChannelMessage) push({ kind: 'edit', id: u.message.id, text: u.message.message })
        if (u instanceof Api.UpdateDeleteChannelMessages) push({ kind: 'delete', ids: u.messages })
    }
}

push = serve({
    async login({ phone, code }) {
        client = makeClient()
        await client.start({
            phoneNumber: phone,
            phoneCode: async () => code,
            onError: (e) => { throw e },
        })
        saved = client.session.save()
        const me = await client.getMe()
        return { id: me.id.toString() }
    },
    async create_megagroup({ title, invite }) {
        const made = await client.invoke(new Api.channels.CreateChannel({ title, about: '', megagroup: true }))
        const chat = made.chats[0]
        const input = new Api.InputChannel({ channelId: chat.id, accessHash: chat.accessHash })
        if (invite) {
            const user = await client.getInputEntity(invite)
            await client.invoke(new Api.channels.InviteToChannel({ channel: input, users: [user] }))
        }
        chats.set(marked(chat), new Api.InputPeerChannel({ channelId: chat.id, accessHash: chat.accessHash }))
        return { id: marked(chat), channel_id: chat.id.toString() }
    },
    async send({ chat, text }) {
        const m = await client.sendMessage(await entity(chat), { message: text })
        return { id: m.id }
    },
    async edit({ chat, id, text }) {
        const m = await client.editMessage(await entity(chat), { message: id, text })
        return { id: m.id, text: m.message }
    },
    async delete({ chat, ids }) {
        await client.deleteMessages(await entity(chat), ids, { revoke: true })
        return null
    },
    async history({ chat, limit, offset_id }) {
        const page = await client.getMessages(await entity(chat), { limit, offsetId: offset_id })
        return page.map(m => ({ id: m.id, text: m.message ?? null }))
    },
    async dialogs({ chunk }) {
        // messages.getDialogs by hand, `chunk` at a time, as GramJS's own iterator pages.
        const out = []
        let offsetDate = 0
        let offsetId = 0
        let offsetPeer = new Api.InputPeerEmpty()
        for (let guard = 0; guard < 100; guard++) {
            const r = await client.invoke(new Api.messages.GetDialogs({ offsetDate, offsetId, offsetPeer, limit: chunk, hash: bigInt(0) }))
            if (!r.dialogs.length) break
            for (const d of r.dialogs) {
                const p = d.peer
                const chat = p.channelId ? r.chats.find(c => c.id.eq(p.channelId)) : p.chatId ? r.chats.find(c => c.id.eq(p.chatId)) : null
                const user = p.userId ? r.users.find(u => u.id.eq(p.userId)) : null
                const top = r.messages.find(m => m.id === d.topMessage && JSON.stringify(m.peerId) === JSON.stringify(p))
                out.push({
                    id: chat ? (p.channelId ? marked(chat) : `-${chat.id}`) : user?.id.toString(),
                    title: chat?.title ?? user?.firstName ?? null,
                    top: top?.message ?? null,
                })
            }
            if (r instanceof Api.messages.Dialogs) break
            const last = r.dialogs[r.dialogs.length - 1]
            const top = r.messages.find(m => m.id === last.topMessage && JSON.stringify(m.peerId) === JSON.stringify(last.peer))
            offsetId = last.topMessage
            offsetDate = top?.date ?? 0
            offsetPeer = await client.getInputEntity(last.peer)
        }
        return out
    },
    async disconnect() {
        // What the client knows about each group's pts, then the app goes away.
        for (const [id, peer] of chats) {
            const r = await client.invoke(new Api.messages.GetPeerDialogs({ peers: [new Api.InputDialogPeer({ peer })] }))
            channelPts.set(id, r.dialogs[0].pts)
        }
        saved = client.session.save()
        await client.destroy()
        return null
    },
    async reconnect() {
        // The app starts again on its saved session; GramJS 2.26 fetches no difference by
        // itself (its catchUp() is empty), so the app asks for each group's.
        client = makeClient()
        await client.connect()
        await client.getMe()
        for (const [id, peer] of chats) {
            let pts = channelPts.get(id)
            for (let guard = 0; guard < 20; guard++) {
                const d = await client.invoke(new Api.updates.GetChannelDifference({
                    channel: new Api.InputChannel({ channelId: peer.channelId, accessHash: peer.accessHash }),
                    filter: new Api.ChannelMessagesFilterEmpty(),
                    pts,
                    limit: 100,
                    force: true,
                }))
                if (d instanceof Api.updates.ChannelDifference) fromDiff(d.newMessages, d.otherUpdates)
                if (d instanceof Api.updates.ChannelDifferenceTooLong) fromDiff(d.messages, [])
                pts = d.pts ?? d.dialog?.pts ?? pts
                if (d.final) break
            }
        }
        return null
    },
    // Polls (tests/e2e/test_js_polls.py): GramJS's own TL classes, layer 198.
    async send_poll({ chat, question, answers, quiz, correct }) {
        const text = t => new Api.TextWithEntities({ text: t, entities: [] })
        const poll = new Api.Poll({
            id: bigInt(0), question: text(question), quiz: !!quiz,
            answers: answers.map((a, i) => new Api.PollAnswer({ text: text(a), option: Buffer.from([48 + i]) })),
        })
        const media = new Api.InputMediaPoll({ poll, correctAnswers: quiz ? [Buffer.from([48 + correct])] : undefined })
        const r = await client.invoke(new Api.messages.SendMedia({
            peer: await entity(chat), media, message: '', randomId: bigInt.randBetween('1', '1e17'),
        }))
        const m = r.updates.find(u => u.message)?.message
        return { id: m.id, poll_id: m.media.poll.id.toString(), answers: m.media.poll.answers.length, quiz: !!m.media.poll.quiz }
    },
    async vote({ chat, id, options }) {
        try {
            const r = await client.invoke(new Api.messages.SendVote({
                peer: await entity(chat), msgId: id, options: options.map(o => Buffer.from([48 + o])),
            }))
            const u = r.updates.find(x => x instanceof Api.UpdateMessagePoll)
            return pollView(u.results)
        } catch (e) {
            return { error: e.errorMessage ?? String(e) }
        }
    },
    async poll_results({ chat, id }) {
        const r = await client.invoke(new Api.messages.GetPollResults({ peer: await entity(chat), msgId: id, pollHash: bigInt(0) }))
        return pollView(r.updates[0].results)
    },
    async quit() {
        if (client) await client.destroy()
        return null
    },
})
