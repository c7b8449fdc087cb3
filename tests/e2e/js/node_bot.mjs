// An unmodified Node bot framework (grammY or Telegraf, NODE_BOT=grammy|telegraf) pointed
// at telesrv's Bot API by its apiRoot, nothing else changed: /start answers with an
// inline keyboard, its button's callback gets an alert, /help is a command of the menu
// it sets, other text is echoed. Prints one JSON line {"ready": username} once polling,
// then runs until stdin closes.
import { Bot } from 'grammy'
import { Markup, Telegraf } from 'telegraf'

const token = process.env.BOT_TOKEN
const apiRoot = process.env.BOT_API_ROOT
const which = process.env.NODE_BOT
const commands = [
    { command: 'start', description: 'Show the menu' },
    { command: 'help', description: 'What I do' },
]

async function grammy() {
    const bot = new Bot(token, { client: { apiRoot } })
    bot.command('start', (ctx) =>
        ctx.reply('Pick one', { reply_markup: { inline_keyboard: [[{ text: 'One', callback_data: 'pick:1' }]] } }))
    bot.command('help', (ctx) => ctx.reply('grammY help'))
    bot.callbackQuery(/^pick:(.+)$/, (ctx) =>
        ctx.answerCallbackQuery({ text: `You picked ${ctx.match[1]}`, show_alert: true }))
    bot.on('message:text', (ctx) => ctx.reply(ctx.message.text))
    bot.catch((err) => console.error('grammY handler failed', err))
    await bot.api.setMyCommands(commands)
    await bot.init()
    bot.start({ timeout: 1, onStart: () => ready(bot.botInfo.username) })
    return () => bot.stop()
}

async function telegraf() {
    const bot = new Telegraf(token, { telegram: { apiRoot } })
    bot.start((ctx) => ctx.reply('Pick one', Markup.inlineKeyboard([Markup.button.callback('One', 'pick:1')])))
    bot.help((ctx) => ctx.reply('Telegraf help'))
    bot.action(/^pick:(.+)$/, (ctx) => ctx.answerCbQuery(`You picked ${ctx.match[1]}`, { show_alert: true }))
    bot.on('text', (ctx) => ctx.reply(ctx.message.text))
    bot.catch((err) => console.error('Telegraf handler failed', err))
    await bot.telegram.setMyCommands(commands)
    const me = await bot.telegram.getMe()
    bot.launch({ polling: { timeout: 1 } }, () => ready(me.username))
    return () => bot.stop('test over')
}

function ready(username) {
    process.stdout.write(JSON.stringify({ ready: username }) + '\n')
}

const stop = await (which === 'telegraf' ? telegraf() : grammy())
process.stdin.resume()
process.stdin.on('end', async () => {
    await stop()
    process.exit(0)
})
