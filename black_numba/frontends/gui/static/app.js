// The black_numba board: draws what the server's state says and sends what the person does.
// No chess rule is computed here: legal moves, SAN, results and PGN come from the server
// (python-chess and the engine core); the page only shows them.
import {Chessboard, COLOR, INPUT_EVENT_TYPE, BORDER_TYPE} from "./vendor/cm-chessboard/src/Chessboard.js"
import {Markers, MARKER_TYPE} from "./vendor/cm-chessboard/src/extensions/markers/Markers.js"
import {Arrows, ARROW_TYPE} from "./vendor/cm-chessboard/src/extensions/arrows/Arrows.js"
import {PromotionDialog, PROMOTION_DIALOG_RESULT_TYPE} from "./vendor/cm-chessboard/src/extensions/promotion-dialog/PromotionDialog.js"

const TOKEN = document.querySelector('meta[name="token"]').content
const TAB_KEY = "black_numba.tab"          // sessionStorage: a reload keeps the tab's game
const SOUND_KEY = "black_numba.sound"      // localStorage: sound on or off
const CLOCK_REDRAW_MS = 100                // a running clock is redrawn this often
const LOW_TIME_MS = 10000                  // a clock below this is shown in red
const ANNOTATE_NODES = 20000               // the annotation's nodes a position
const ELO_STEP = 50                        // the strength slider's step
const ARROW_LINES = 3                      // best-move arrows drawn, one a line at most
const MARK_CLASSES = {"?!": "inaccuracy", "?": "mistake", "??": "blunder"}
const MARK_NAMES = {"?!": ["inaccuracy", "inaccuracies"], "?": ["mistake", "mistakes"],
                    "??": ["blunder", "blunders"]}
const LOST_TEXT = "The server stopped: start `black-numba gui` again and open the address it " +
    "prints (each run has a new address and key)."
const GAMES_EVERY_MS = 5000                // the list of games going on is refreshed this often
const COPIED_MS = 2000                     // "Copied" shows this long on the Copy FEN button
const STANDARD_FEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

const $ = (id) => document.getElementById(id)
// this page's name for the server: a page that goes on to another game leaves the old one
const PAGE_ID = Array.from(crypto.getRandomValues(new Uint8Array(8)),
                           (b) => b.toString(16).padStart(2, "0")).join("")
let settings = null      // /api/settings: the strength range, the styles
let state = null         // the tab's game as the server last said it
let tabId = null
let orientation = COLOR.white
let bottom = COLOR.white // the colour at the bottom: a played game's person, then kept
let analysisAsked = {}   // analysis settings set on the page, not yet in a state drawn
let lines = null         // the newest engine lines of the position shown ({tag, lines})
let events = null
let clockBase = null     // {snapshot, at}: the clock as last sent, and when it came
let mode = "play"        // the panel shown
let lost = false         // the server has stopped (or restarted: a new key): the page says so
let shownOrientation = COLOR.white   // the orientation asked of the board (it turns later)

// -- the server ----------------------------------------------------------------------------
class ApiError extends Error {}

async function api(path, data) {
    // The server's JSON answer; ApiError with the reason when refused, or when the server is
    // gone (then the page says so: serverLost)
    const init = data === undefined ? {headers: {"X-Token": TOKEN}} : {
        method: "POST", body: JSON.stringify(Object.assign({tab: tabId}, data)),
        headers: {"Content-Type": "application/json", "X-Token": TOKEN}}
    let reply
    try {
        reply = await fetch(path, init)
    } catch (e) {
        serverLost()                 // no answer at all: the server has stopped
        throw new ApiError(LOST_TEXT)
    }
    if (reply.status === 403) {      // our token refused: another run on this port
        serverLost()
        throw new ApiError(LOST_TEXT)
    }
    const body = await reply.json().catch(() => ({error: `the server answered ${reply.status}`}))
    if (!reply.ok) throw new ApiError(body.error || `the server answered ${reply.status}`)
    return body
}

let queue = Promise.resolve()    // actions one after another: each sees the last one's state

function act(path, data, messageBox, when) {
    // An action, after those asked before it (when(): still wanted once its turn comes); its
    // new state is drawn, a refusal shown in messageBox (or the notice): never only in the
    // console.
    const run = async () => {
        if (when && !when()) return null
        try {
            const body = await api(path, data)
            if (messageBox) messageBox.textContent = ""
            if (body.state) setState(body.state)
            return body
        } catch (e) {
            const text = e instanceof ApiError ? e.message : `the page failed: ${e.message}`
            if (messageBox) messageBox.textContent = text
            if (!messageBox || !(e instanceof ApiError)) notice(text)
            if (state) drawBoard()       // a refused move goes back
            return null
        }
    }
    const done = queue.then(run)
    queue = done.catch(() => null)
    return done
}

function notice(text, sticky = false) {
    const box = $("notice")
    if (lost && !sticky) return          // the server's loss stays said
    box.querySelector(".text").textContent = text
    box.hidden = !text
    clearTimeout(notice.timer)
    if (text && !sticky) notice.timer = setTimeout(() => { box.hidden = true }, 8000)
}

function serverLost() {
    // The page follows the server: once it is gone nothing claims to go on
    if (lost) return
    lost = true
    document.body.dataset.lost = "1"
    if (events) events.close()
    notice(LOST_TEXT, true)
    if (state) {
        state.engine = Object.assign({}, state.engine, {thinking: false, analysing: false, note: null})
        if (state.clock) state.clock = Object.assign({}, state.clock, {running: null})
        if (clockBase) clockBase = {snapshot: Object.assign({}, clockBase.snapshot, {running: null}),
                                    at: performance.now()}
        lines = null
        board.disableMoveInput()
        drawBoard.inputKey = ""
        drawEngine()
        drawLines()
        drawClocks()
    }
}

async function probe() {
    // The event stream broke: is the server still there? (EventSource retries by itself,
    // quietly, for ever: the page would look alive with no server behind it.)
    if (lost || probe.busy) return
    probe.busy = true
    try {
        await api(`/api/state?tab=${encodeURIComponent(tabId)}`)
    } catch (e) { /* serverLost has said it where the server is gone */ }
    probe.busy = false
}

async function openTab() {
    // A reload keeps the tab's game and shows its settings; a fresh page is a game ready to
    // play with the Play panel's settings (the engine answers the first move)
    const saved = sessionStorage.getItem(TAB_KEY)
    if (saved) {
        tabId = saved
        try {
            const body = await api(`/api/state?tab=${encodeURIComponent(saved)}`)
            setState(body.state)
            if (body.state.mode === "play") fillForm(body.state)
            return
        } catch (e) {
            if (!(e instanceof ApiError) || lost) throw e
        }
    }
    const body = await api("/api/tab", {})
    tabId = body.tab
    sessionStorage.setItem(TAB_KEY, tabId)
    const ready = await api("/api/new", playSettings())
    setState(ready.state)
}

function switchTab(id) {
    // Go back to another game going on (from the list): this page shows it from now on
    const run = async () => {
        let body
        try {
            body = await api(`/api/state?tab=${encodeURIComponent(id)}`)
        } catch (e) {
            notice(e.message)
            return
        }
        await leave()
        $("play-kept").textContent = ""
        tabId = id
        sessionStorage.setItem(TAB_KEY, id)
        state = null                 // another tab's states are numbered on their own
        lines = null
        wantPly = null
        setState(body.state)
        fillForm(body.state)
        listen()
        refreshGames()
    }
    queue = queue.then(run).catch(() => null)
    return queue
}

function leave() {
    // This page stops following its game (another is shown): the server hears it at once
    if (events) events.close()
    return tabId ? api("/api/leave", {tab: tabId, page: PAGE_ID}).catch(() => null) : null
}

function listen() {
    // One event stream for the tab: states, engine lines, clocks, progress, notices.
    events = new EventSource(`/api/events?tab=${encodeURIComponent(tabId)}&page=${PAGE_ID}` +
                             `&token=${encodeURIComponent(TOKEN)}`)
    events.onerror = () => {
        // EventSource reconnects by itself, for ever and quietly: whether the server is still
        // there is asked at once (a stopped one is said within a second)
        if (events.readyState !== EventSource.CLOSED) return probe()
        // refused for good: gone, restarted (a new token), or too many pages of this game
        probe().then(() => {
            if (!lost) notice("This page gets no news from the server (too many pages show " +
                              "this game): close one and reload this one.")
        })
    }
    events.addEventListener("state", (e) => setState(JSON.parse(e.data)))
    events.addEventListener("lines", (e) => {
        const data = JSON.parse(e.data)
        if (state && data.tag === state.tag && data.fen === state.fen && state.analysis.on) {
            lines = data
            drawLines()
        }
    })
    events.addEventListener("clock", (e) => {
        if (state && state.clock) {
            state.clock = JSON.parse(e.data)
            clockBase = {snapshot: state.clock, at: performance.now()}
        }
    })
    events.addEventListener("engine", (e) => {
        if (state) {
            state.engine = JSON.parse(e.data)
            drawEngine()
        }
    })
    events.addEventListener("progress", (e) => {
        const p = JSON.parse(e.data)
        const bar = $("annotate-progress")
        bar.hidden = false
        bar.max = p.total
        bar.value = p.done
    })
    events.addEventListener("moved", () => sound("move"))
    events.addEventListener("notice", (e) => notice(JSON.parse(e.data).text))
    events.addEventListener("message", (e) => notice(JSON.parse(e.data).text))
}

// -- the board -----------------------------------------------------------------------------
const board = new Chessboard($("board"), {
    assetsUrl: "/static/vendor/cm-chessboard/assets/",
    // the coordinates in a frame round the board, never over a piece
    style: {cssClass: "default", showCoordinates: true, borderType: BORDER_TYPE.frame,
            pieces: {file: "pieces/standard.svg"}, animationDuration: 150},
    extensions: [{class: Markers, props: {autoMarkers: null}}, {class: Arrows},
                 {class: PromotionDialog}],
})

// the dialog is drawn later (after the board's animation) and redrawn with the board: each
// drawing is moved into place before it is painted
new MutationObserver(placePromotionDialog).observe(
    document.querySelector("#board .promotion-dialog-group"), {childList: true})

function onInput(event) {
    if (!state) return false
    if (event.type === INPUT_EVENT_TYPE.moveInputStarted) {
        const targets = state.legal[event.squareFrom]
        board.removeMarkers(MARKER_TYPE.dot)
        board.removeMarkers(MARKER_TYPE.frame)
        if (!targets) return false
        board.addMarker(MARKER_TYPE.frame, event.squareFrom)
        for (const sq of targets) board.addMarker(MARKER_TYPE.dot, sq)
        return true
    }
    if (event.type === INPUT_EVENT_TYPE.validateMoveInput) {
        board.removeMarkers(MARKER_TYPE.dot)
        board.removeMarkers(MARKER_TYPE.frame)
        const targets = state.legal[event.squareFrom] || []
        if (!targets.includes(event.squareTo)) return false
        // The board's own move animation is declined (false) and the piece is put on its
        // square right after: the library's move input is then done at once, so a state
        // from the server (the reply, the engine's answer) never meets a half-finished one.
        const from = event.squareFrom, to = event.squareTo
        setTimeout(() => {
            board.movePiece(from, to, false)
            if (!state.promotions.includes(from + to)) return sendMove(from, to, null)
            const color = state.turn === "white" ? COLOR.white : COLOR.black
            board.showPromotionDialog(to, color, (result) => {
                if (result && result.type === PROMOTION_DIALOG_RESULT_TYPE.pieceSelected) {
                    sendMove(from, to, result.piece.charAt(1))
                } else {
                    drawBoard()
                }
            })
            promotionSquare = to
        })
        return false
    }
    if (event.type === INPUT_EVENT_TYPE.moveInputCanceled) {
        board.removeMarkers(MARKER_TYPE.dot)
        board.removeMarkers(MARKER_TYPE.frame)
    }
    return undefined
}

let promotionSquare = null    // the square of the promotion the dialog asks about

function placePromotionDialog() {
    // The library draws its dialog from the square's centre (half a square off); lichess's
    // covers the promotion square and the three beyond it, in that file
    const group = document.querySelector("#board .promotion-dialog-group")
    const dialog = group && group.querySelector("rect.promotion-dialog")
    const target = document.querySelector(`#board rect[data-square="${promotionSquare}"]`)
    if (!dialog || !target) return
    const h = Number(target.getAttribute("height"))
    const dy = Number(dialog.getAttribute("y")) < Number(target.getAttribute("y")) ?
        Number(target.getAttribute("y")) + h - 4 * h : Number(target.getAttribute("y"))
    group.setAttribute("transform", `translate(${Number(target.getAttribute("x")) -
        Number(dialog.getAttribute("x"))} ${dy - Number(dialog.getAttribute("y"))})`)
}

async function sendMove(from, to, promotion) {
    const body = await act("/api/move", {from, to, promotion})
    if (body) sound(body.state.moves.length && body.state.moves[body.state.ply - 1] &&
                    body.state.moves[body.state.ply - 1].san.includes("x") ? "capture" : "move")
}

function drawBoard() {
    const wanted = boardOrientation()
    if (shownOrientation !== wanted) {      // once: the board turns after a while, and a
        shownOrientation = wanted           // second request meanwhile is refused (a warning)
        board.setOrientation(wanted)
    }
    board.setPosition(state.fen, true)
    board.removeMarkers(MARKER_TYPE.square)
    board.removeMarkers(MARKER_TYPE.circleDanger)
    if (state.last_move) {
        board.addMarker(MARKER_TYPE.square, state.last_move[0])
        board.addMarker(MARKER_TYPE.square, state.last_move[1])
    }
    if (state.check) board.addMarker(MARKER_TYPE.circleDanger, state.check)
    // the move input is reset only when what may be moved changes, so that a state that
    // changes nothing for it (a clock, the engine's news) never drops a half-made move
    const inputKey = Object.keys(state.legal).length && !lost ? state.fen + JSON.stringify(state.legal) : ""
    if (inputKey !== drawBoard.inputKey || !board.isMoveInputEnabled() !== !inputKey) {
        drawBoard.inputKey = inputKey
        board.disableMoveInput()
        if (inputKey) board.enableMoveInput(onInput, state.turn === "white" ? COLOR.white : COLOR.black)
    }
    drawArrows()
}

function boardOrientation() {
    return bottom
}

function drawArrows() {
    board.removeArrows()
    if (!state || !state.analysis.on || !lines || lines.tag !== state.tag) return
    lines.lines.slice(0, ARROW_LINES).forEach((line, i) => {
        if (line.pv.length) {
            const uci = line.pv[0]
            board.addArrow(i === 0 ? ARROW_TYPE.default : ARROW_TYPE.secondary, uci.slice(0, 2), uci.slice(2, 4))
        }
    })
}

// -- state ---------------------------------------------------------------------------------
function setState(s) {
    if (state && s.seq < state.seq) return     // an older state overtaken by a newer one
    const positionChanged = !state || state.tag !== s.tag
    // the panel follows the game's mode when it changes; a fresh board starts on Play
    if (!state) showMode(s.mode === "analysis" && s.moves.length ? "analyse" : "play")
    else if (state.mode !== s.mode) showMode(s.mode === "analysis" ? "analyse" : "play")
    if (!state || s.ply === wantPly || s.generation !== state.generation) wantPly = null
    if (s.mode === "play" && (!state || state.game !== s.game)) {
        bottom = s.engine_color === "white" ? COLOR.black : COLOR.white   // a new game: yours
    }
    state = s
    document.body.dataset.fen = s.fen          // what is shown, for tests and tools
    if (positionChanged) lines = null
    if (s.clock) clockBase = {snapshot: s.clock, at: performance.now()}
    drawBoard()
    drawMoves()
    drawStatus()
    drawClocks()
    drawEngine()
    drawLines()
    drawAnnotation()
    drawControls()
}

function drawStatus() {
    $("status").textContent = state.status
    // a finished game's line in the person's colours: green won, red lost, plain otherwise
    const ended = state.mode === "play" && state.over
    const yourResult = state.engine_color === "black" ? "1-0" : "0-1"
    $("status").classList.toggle("over", ended)
    $("status").classList.toggle("won", ended && state.result === yourResult)
    $("status").classList.toggle("lost", ended && state.result !== "*" &&
                                 state.result !== "1/2-1/2" && state.result !== yourResult)
    const p = state.players
    $("players").textContent = `${p.white} – ${p.black}`
    // a game going on, an earlier position shown: moves wait for the last one, and the
    // clock runs meanwhile
    const back = going() && state.ply < state.moves.length
    $("review").hidden = !back
    $("status").hidden = back              // one line: the review says it instead
    if (back) {
        $("review-text").textContent = "An earlier position: moves are made at the last one" +
            (state.clock && state.clock.running ? "; the clock runs." : ".")
    }
    drawPlayHint()
}

function going() {
    // A played game with no result yet (not aborted)
    return state.mode === "play" && !state.over
}

function begun() {
    // A game going on in which a move has been made: one that a click must not lose
    return going() && state.moves.length > state.start_ply
}

function unstarted() {
    // A game set up on the board and not yet begun: the panel's settings still apply to it
    return state && !lost && going() && !state.moves.length
}

function drawPlayHint() {
    const yours = going() && state.turn !== state.engine_color
    $("play-hint").textContent = unstarted() && yours ?
        `Ready: make your first move on the board (you play ${state.turn === "white" ? "White" : "Black"}). ` +
        "Settings changed above apply to this game until then; New game starts another." : ""
}

function moveNumber(i) {
    // The move number and side of the move at index i of the game.
    const whiteFirst = state.start_turn === "white"
    const k = i + (whiteFirst ? 0 : 1)
    return {number: state.start_number + Math.floor(k / 2), white: k % 2 === 0}
}

function drawMoves() {
    const box = $("moves")
    box.textContent = ""
    const plies = state.annotation ? state.annotation.plies : []
    state.moves.forEach((m, i) => {
        const {number, white} = moveNumber(i)
        if (white || i === 0) {
            const n = document.createElement("span")
            n.className = "move-number"
            n.textContent = white ? `${number}.` : `${number}…`
            box.appendChild(n)
        }
        const el = document.createElement("span")
        el.className = "move"
        el.dataset.ply = i + 1
        el.textContent = m.san
        const mark = plies[i] && plies[i].mark
        if (mark) {
            const b = document.createElement("span")
            b.className = "mark " + MARK_CLASSES[mark]
            b.textContent = mark
            el.appendChild(b)
        }
        if (i + 1 === state.ply) el.classList.add("current")
        el.addEventListener("click", () => goto(i + 1))
        box.appendChild(el)
    })
    if (state.shown_result) {               // as lichess, analysed games' too
        const r = document.createElement("span")
        r.className = "result"
        r.textContent = state.shown_result
        box.appendChild(r)
    }
    const current = box.querySelector(".current")
    if (current) current.scrollIntoView({block: "nearest"})
    const better = plies[state.ply - 1]
    $("better").textContent = better && better.mark && better.best ?
        `${better.best} was best` + (better.line.length ? `: ${better.line.join(" ")}` : "") : ""
}

function formatClock(ms) {
    const s = Math.max(0, ms) / 1000
    if (s < 20) return s.toFixed(1)
    const m = Math.floor(s / 60), r = Math.floor(s % 60)
    const h = Math.floor(m / 60)
    return h ? `${h}:${String(m % 60).padStart(2, "0")}:${String(r).padStart(2, "0")}`
             : `${m}:${String(r).padStart(2, "0")}`
}

function drawClocks() {
    // the clocks' places are kept when there are none (the board never jumps)
    const top = $("clock-top"), bottom = $("clock-bottom")
    if (!state || !state.clock) {
        top.classList.add("off")
        bottom.classList.add("off")
        return
    }
    const c = clockBase.snapshot
    const elapsed = c.running && !state.over ? performance.now() - clockBase.at : 0
    const bottomColor = shownOrientation === COLOR.white ? "white" : "black"
    for (const [el, color] of [[bottom, bottomColor], [top, bottomColor === "white" ? "black" : "white"]]) {
        el.classList.remove("off")
        const left = c[color] - (c.running === color ? elapsed : 0)
        el.id === "clock-top" ? el.dataset.color = color : el.dataset.color = color
        el.querySelector(".who").textContent = state.players[color]
        el.querySelector(".time").textContent = formatClock(left)
        el.classList.toggle("running", c.running === color && !state.over)
        el.classList.toggle("low", left < LOW_TIME_MS)
    }
}

function drawEngine() {
    const e = state.engine
    $("compiling").hidden = !e.compiling
    // a search of this tab that another tab's has stopped is not said to go on
    const paused = e.note === "preempted" || e.note === "waiting"
    let text = lost ? "engine: stopped with the server" :
        e.error ? `engine error: ${e.error}` : e.compiling ? "engine: compiling…" :
        paused && e.thinking ? "engine: waiting for another tab" :
        paused && e.analysing ? "engine: paused (another tab is using it)" :
        e.thinking ? "engine: thinking…" : e.analysing ? "engine: analysing" : "engine: ready"
    $("engine-status").textContent = text
    $("engine-status").className = "engine-status" +
        (!lost && !paused && (e.thinking || e.analysing) ? " busy" : "") + (lost ? " lost" : "")
    const note = e.note === "preempted" ? "another tab's search took the engine: this one goes on when it is free" :
        e.note === "waiting" ? "waiting for the engine (another tab is using it)" : ""
    $("engine-note").textContent = note
}

function scoreText(score) {
    if ("mate" in score) return score.mate === 0 ? "#" : `#${score.mate}`
    const cp = score.cp / 100
    return (cp > 0 ? "+" : "") + cp.toFixed(2)
}

function drawLines() {
    const box = $("lines")
    box.textContent = ""
    const bar = $("evalbar")
    bar.classList.toggle("off", !(state && state.mode === "analysis"))   // its place is kept
    if (!state || !state.analysis.on || !lines || lines.tag !== state.tag) {
        drawEvalBar(null)
        drawArrows()
        return
    }
    for (const line of lines.lines) {
        const li = document.createElement("li")
        li.className = "line"
        li.dataset.multipv = line.multipv
        const score = document.createElement("span")
        score.className = "score"
        score.textContent = scoreText(line.score)
        const moves = document.createElement("span")
        moves.className = "pv"
        moves.textContent = line.san.join(" ")
        const info = document.createElement("span")
        info.className = "info"
        const parts = [`depth ${line.depth}`]
        if (line.wdl) parts.push(`W/D/L ${line.wdl.map((x) => (x / 10).toFixed(1)).join("/")}%`)
        parts.push(`${formatCount(line.nodes)} nodes`, `${formatCount(line.nps)} nodes/s`)
        if (line.tbhits) parts.push(`${formatCount(line.tbhits)} tbhits`)
        info.textContent = parts.join(" · ")
        li.append(score, moves, info)
        li.title = "click: play its first move; shift-click: play the whole line"
        li.addEventListener("click", (e) => {
            if (line.pv.length) act("/api/line", {moves: e.shiftKey ? line.pv : line.pv.slice(0, 1)})
        })
        box.appendChild(li)
    }
    drawEvalBar(lines.lines[0])
    drawArrows()
}

function formatCount(n) {
    if (n === null || n === undefined) return "?"
    if (n >= 1e6) return (n / 1e6).toFixed(1) + "M"
    if (n >= 1e3) return (n / 1e3).toFixed(0) + "k"
    return String(n)
}

function drawEvalBar(line) {
    // The bar is White's winning chances (lichess's scale, not linear in centipawns).
    const white = $("evalbar").querySelector(".evalbar-white")
    const text = $("evalbar").querySelector(".evalbar-text")
    const win = line ? line.win : 0
    const share = 50 + 50 * win
    white.style.height = `${share}%`
    text.textContent = line ? scoreText(line.score) : ""
    $("evalbar").dataset.win = line ? String(win) : ""
    $("evalbar").classList.toggle("flipped", shownOrientation === COLOR.black)
}

function drawAnnotation() {
    const a = state.annotating
    const bar = $("annotate-progress")
    bar.hidden = !a
    if (a) { bar.max = a.total; bar.value = a.done }
    $("btn-annotate").disabled = !!a || !state.moves.length
    const ann = state.annotation
    const summary = $("annotate-summary")
    const graph = $("eval-graph")
    if (!ann) {
        summary.textContent = ""
        graph.setAttribute("hidden", "")
        return
    }
    const counts = {white: {"?!": 0, "?": 0, "??": 0}, black: {"?!": 0, "?": 0, "??": 0}}
    ann.plies.forEach((p, i) => {
        if (p.mark) counts[moveNumber(i).white ? "white" : "black"][p.mark] += 1
    })
    const side = (c) => {
        const found = ["?!", "?", "??"].filter((m) => counts[c][m])
            .map((m) => `${counts[c][m]} ${MARK_NAMES[m][counts[c][m] === 1 ? 0 : 1]}`)
        return (found.length ? found.join(", ") : "no inaccuracy, mistake or blunder") +
            (ann.acpl[c] ? `, average centipawn loss ${ann.acpl[c]}` : "")
    }
    summary.textContent = `White: ${side("white")}. Black: ${side("black")}.`
    drawGraph(graph, ann.plies)
}

function drawGraph(svg, plies) {
    // The evaluation graph: White's winning chances after each move; a click goes there.
    svg.removeAttribute("hidden")      // an SVG element has no hidden property
    svg.textContent = ""
    const ns = "http://www.w3.org/2000/svg"
    const n = plies.length
    const x = (i) => n <= 1 ? 0 : (400 * i) / (n - 1)
    const y = (win) => 50 - 48 * win
    const mid = document.createElementNS(ns, "line")
    Object.entries({x1: 0, x2: 400, y1: 50, y2: 50, class: "axis"}).forEach(([k, v]) => mid.setAttribute(k, v))
    svg.appendChild(mid)
    const area = document.createElementNS(ns, "polygon")
    const pts = plies.map((p, i) => `${x(i)},${y(p.win)}`)
    area.setAttribute("points", `0,100 ${pts.join(" ")} ${x(n - 1)},100`)
    area.setAttribute("class", "area")
    svg.appendChild(area)
    const curve = document.createElementNS(ns, "polyline")
    curve.setAttribute("points", pts.join(" "))
    curve.setAttribute("class", "curve")
    svg.appendChild(curve)
    plies.forEach((p, i) => {
        if (p.mark) {
            const dot = document.createElementNS(ns, "circle")
            Object.entries({cx: x(i), cy: y(p.win), r: 3, class: "dot " + MARK_CLASSES[p.mark]})
                .forEach(([k, v]) => dot.setAttribute(k, v))
            svg.appendChild(dot)
        }
    })
    svg.onclick = (e) => {
        const r = svg.getBoundingClientRect()
        const i = Math.round(((e.clientX - r.left) / r.width) * (n - 1))
        goto(Math.max(0, Math.min(n, i + 1)))
    }
}

function drawControls() {
    const play = state.mode === "play"
    // a game decided by time, resignation or abort stays decided: no take back
    const decided = play && ["time", "resignation", "aborted"].includes(state.reason)
    $("btn-takeback").disabled = !play || !state.moves.length || decided
    // as lichess: Abort until both sides have moved, then Resign
    $("btn-resign").textContent = state.abortable ? "Abort" : "Resign"
    $("btn-resign").title = state.abortable ? "end this game with no result (no side has " +
        "made two moves)" : "resign this game"
    $("btn-resign").disabled = !going()
    $("btn-analyse-game").disabled = !play
    // a setting just changed keeps its new value while an older state is drawn (a load
    // answered after the click must not flip the box back)
    const analysis = {...state.analysis, ...analysisAsked}
    $("analysis-on").checked = analysis.on
    $("analysis-on").disabled = state.mode !== "analysis"
    $("multipv").value = String(analysis.multipv)
    $("wdl").checked = analysis.wdl
    $("btn-prev").disabled = $("btn-first").disabled = state.ply === 0
    $("btn-next").disabled = $("btn-last").disabled = state.ply === state.moves.length
}

function showMode(m) {
    mode = m
    $("panel-play").hidden = m !== "play"
    $("panel-analyse").hidden = m !== "analyse"
    $("tab-play").classList.toggle("active", m === "play")
    $("tab-analyse").classList.toggle("active", m === "analyse")
}

// -- actions -------------------------------------------------------------------------------
let wantPly = null        // the ply asked for and not yet shown: quick key presses add up

function shownPly() {
    return wantPly === null ? state.ply : wantPly
}

function goto(ply) {
    if (!state || ply < 0 || ply > state.moves.length || ply === shownPly()) return
    wantPly = ply
    sendGoto()
}

let gotoInFlight = false
async function sendGoto() {
    // One goto at a time, the newest ply wanted sent when the last is answered: requests sent
    // together may be served in any order (one thread each), and the last served would win.
    if (gotoInFlight) return
    gotoInFlight = true
    try {
        while (state && wantPly !== null && wantPly !== state.ply) {
            if (!(await act("/api/goto", {ply: wantPly}))) {
                wantPly = null               // refused (the game changed under it)
                break
            }
        }
    } finally {
        gotoInFlight = false
    }
}

function eloValue() {
    const v = Number($("elo").value)
    return v >= settings.elo_max ? null : v
}

function playSettings() {
    // The new game's settings from the play form.
    const data = {mode: "play", color: $("color").value, elo: eloValue()}
    if (settings.styles) data.style = $("style").value
    if ($("rating").value) data.rating = Number($("rating").value)   // the Hustler reads it
    const tc = $("tc").value
    if (tc) {
        const [base, inc] = tc.split("+").map(Number)
        data.base_s = base
        data.inc_s = inc
    }
    data.movetime_ms = Math.round(Number($("movetime").value) * 1000)
    return data
}

async function newGame(event) {
    event.preventDefault()
    const data = playSettings()
    const start = $("start").value
    if (start === "fen") {
        if (!$("start-fen").value.trim()) {
            $("play-message").textContent = "The FEN box is empty: paste a FEN into it, " +
                "or start from the standard position."
            return
        }
        data.fen = $("start-fen").value
    }
    if (start === "chess960") data.chess960 = true
    if (state && begun()) return newGameBeside(data)
    $("play-kept").textContent = ""
    await act("/api/new", data, $("play-message"))
}

function newGameBeside(data) {
    // A game going on is never lost by a click: the new game gets a tab of its own on the
    // server, this page shows it, and the old one stays in "Your other games going on" (its
    // clock runs, as lichess's does when one opens another board)
    const kept = state
    const run = async () => {
        try {
            const made = await api("/api/tab", {})
            const body = await api("/api/new", Object.assign({}, data, {tab: made.tab}))
            await leave()
            tabId = made.tab
            sessionStorage.setItem(TAB_KEY, tabId)
            state = null
            lines = null
            wantPly = null
            setState(body.state)
            listen()
            await refreshGames()
            const last = kept.moves[kept.moves.length - 1].san
            $("play-message").textContent = ""
            $("play-kept").textContent = `Your game ${kept.players.white} – ${kept.players.black} ` +
                `(last move ${last}) goes on: it is listed below under "Your other games going on"` +
                (kept.clock ? ", and its clock runs." : ".")
        } catch (e) {
            $("play-message").textContent = e instanceof ApiError ? e.message :
                `the page failed: ${e.message}`
        }
    }
    queue = queue.then(run).catch(() => null)
    return queue
}

function settingsChanged() {
    // A game not yet begun takes the panel's settings as they change (its start stays)
    if (!unstarted()) return
    act("/api/new", Object.assign(playSettings(), {fen: state.start_fen, chess960: state.chess960}),
        $("play-message"), unstarted)
}

function fillForm(s) {
    // The Play panel shows the settings of the game on the board (after a reload, or going
    // back to a game): the next New game keeps them unless changed
    $("color").value = s.engine_color === "white" ? "black" : "white"
    $("elo").value = s.elo === null ? $("elo").max : String(s.elo)
    drawElo()
    if (settings.styles) $("style").value = s.style || settings.style_default
    $("rating").value = s.rating === null || s.rating === undefined ? "" : String(s.rating)
    if (s.clock) {
        const tc = `${s.clock.base_ms / 1000}+${s.clock.inc_ms / 1000}`
        if (![...$("tc").options].some((o) => o.value === tc)) {
            const o = document.createElement("option")
            o.value = tc
            o.textContent = controlText(s.clock)
            $("tc").appendChild(o)
        }
        $("tc").value = tc
    } else {
        $("tc").value = ""
    }
    if (s.movetime_ms) $("movetime").value = String(s.movetime_ms / 1000)
    $("movetime-row").hidden = !!$("tc").value
}

function controlText(clock) {
    // 180000 ms + 2000 ms as lichess writes it: "3+2"
    const base = clock.base_ms / 60000
    return `${Number.isInteger(base) ? base : +base.toFixed(2)}+${clock.inc_ms / 1000}`
}

async function refreshGames() {
    // The games going on on this server, this page's own left out: a click goes back to one
    if (lost || !tabId) return
    let body
    try {
        body = await api("/api/games")
    } catch (e) {
        return                       // a stopped server is said by serverLost
    }
    const others = body.games.filter((g) => g.tab !== tabId)
    const list = $("games-list")
    list.textContent = ""
    for (const g of others) {
        const li = document.createElement("li")
        const b = document.createElement("button")
        b.type = "button"
        b.className = "game-link"
        b.dataset.tab = g.tab
        const control = g.clock ? controlText(g.clock) : "no clocks"
        b.textContent = `${g.players.white} – ${g.players.black} · ${control} · ${g.last} · ` +
            g.status + (g.pages ? " · open in another tab" : "")
        b.title = "show this game here"
        b.addEventListener("click", () => switchTab(g.tab))
        li.appendChild(b)
        list.appendChild(li)
    }
    $("games").hidden = !others.length
}

async function copyFen() {
    // Copy FEN says that it copied (or shows the FEN to copy by hand)
    const fen = state.fen
    let copied = false
    try {
        await navigator.clipboard.writeText(fen)
        copied = true
    } catch (e) {
        const area = document.createElement("textarea")
        area.value = fen
        document.body.appendChild(area)
        area.select()
        try { copied = document.execCommand("copy") } catch (e2) { copied = false }
        area.remove()
    }
    const button = $("btn-fen")
    if (!copied) return notice(`The FEN could not be copied; here it is: ${fen}`)
    button.textContent = "Copied ✓"
    button.classList.add("done")
    clearTimeout(copyFen.timer)
    copyFen.timer = setTimeout(() => {
        button.textContent = "Copy FEN"
        button.classList.remove("done")
    }, COPIED_MS)
}

async function load() {
    await act("/api/load", {text: $("load-text").value, chess960: $("load-960").checked}, $("load-message"))
}

async function loadFile() {
    const file = $("load-file").files[0]
    if (!file) return
    $("load-text").value = await file.text()
    $("load-file").value = ""
    await load()
}

async function downloadPgn() {
    // Said beside the button when it cannot be done (the server gone, a refusal)
    const box = $("moves-message")
    box.textContent = ""
    let reply
    try {
        reply = await fetch(`/api/pgn?tab=${encodeURIComponent(tabId)}`, {headers: {"X-Token": TOKEN}})
    } catch (e) {
        serverLost()
        box.textContent = LOST_TEXT
        return
    }
    if (reply.status === 403) {
        serverLost()
        box.textContent = LOST_TEXT
        return
    }
    if (!reply.ok) {
        box.textContent = "The PGN could not be made: the server answered " + reply.status
        return
    }
    const blob = new Blob([await reply.text()], {type: "application/x-chess-pgn"})
    const a = document.createElement("a")
    a.href = URL.createObjectURL(blob)
    a.download = "black_numba.pgn"
    document.body.appendChild(a)
    a.click()
    a.remove()
    setTimeout(() => URL.revokeObjectURL(a.href), 10000)
}

async function setAnalysis(change) {
    Object.assign(analysisAsked, change)
    await act("/api/analysis", change)
    // answered (or refused): from now on the server's state says what is set
    for (const [k, v] of Object.entries(change)) if (analysisAsked[k] === v) delete analysisAsked[k]
    if (state) drawControls()
}

// -- sound (WebAudio: a short tone, no files) ----------------------------------------------
let audio = null
function sound(kind) {
    if (!$("sound").checked) return
    try {
        audio = audio || new AudioContext()
        const osc = audio.createOscillator(), gain = audio.createGain()
        osc.frequency.value = kind === "capture" ? 330 : 520
        gain.gain.setValueAtTime(0.15, audio.currentTime)
        gain.gain.exponentialRampToValueAtTime(0.001, audio.currentTime + 0.12)
        osc.connect(gain).connect(audio.destination)
        osc.start()
        osc.stop(audio.currentTime + 0.12)
    } catch (e) { /* no audio: silence */ }
}

// -- wiring --------------------------------------------------------------------------------
function wire() {
    $("play-form").addEventListener("submit", newGame)
    $("start").addEventListener("change", () => { $("start-fen").hidden = $("start").value !== "fen" })
    $("tc").addEventListener("change", () => { $("movetime-row").hidden = !!$("tc").value })
    $("movetime-row").hidden = !!$("tc").value
    $("elo").addEventListener("input", drawElo)
    $("btn-takeback").addEventListener("click", () => act("/api/takeback", {}, $("game-message")))
    $("btn-resign").addEventListener("click", () => {
        if (state && state.abortable) act("/api/abort", {}, $("game-message"))
        else if (confirm("Resign this game?")) act("/api/resign", {}, $("game-message"))
    })
    $("btn-analyse-game").addEventListener("click", analyseGame)
    $("btn-play-here").addEventListener("click", async () => {
        const data = Object.assign(playSettings(), {from_here: true})
        const body = await act("/api/new", data, $("analyse-message"))
        if (body) showMode("play")
    })
    $("btn-flip").addEventListener("click", flip)
    $("btn-first").addEventListener("click", () => goto(0))
    $("btn-prev").addEventListener("click", () => goto(shownPly() - 1))
    $("btn-next").addEventListener("click", () => goto(shownPly() + 1))
    $("btn-last").addEventListener("click", () => goto(state.moves.length))
    $("tab-play").addEventListener("click", () => {
        showMode("play")
        refreshGames()
    })
    $("tab-analyse").addEventListener("click", async () => {
        if (state && state.mode === "play" && !(await analyseGame())) return
        showMode("analyse")
    })
    $("analysis-on").addEventListener("change", () => setAnalysis({on: $("analysis-on").checked}))
    $("multipv").addEventListener("change", () => setAnalysis({multipv: Number($("multipv").value)}))
    $("wdl").addEventListener("change", () => setAnalysis({wdl: $("wdl").checked}))
    $("btn-load").addEventListener("click", load)
    $("load-file").addEventListener("change", loadFile)
    $("btn-annotate").addEventListener("click",
        () => act("/api/annotate", {nodes: ANNOTATE_NODES}, $("analyse-message")))
    $("btn-pgn").addEventListener("click", downloadPgn)
    $("btn-fen").addEventListener("click", copyFen)
    $("btn-live").addEventListener("click", () => goto(state.moves.length))
    $("notice-close").addEventListener("click", () => { if (!lost) $("notice").hidden = true })
    for (const id of ["color", "elo", "style", "rating", "tc", "movetime"]) {
        $(id).addEventListener("change", settingsChanged)
    }
    setInterval(() => { if (mode === "play") refreshGames() }, GAMES_EVERY_MS)
    $("sound").checked = localStorage.getItem(SOUND_KEY) === "on"
    $("sound").addEventListener("change", () => localStorage.setItem(SOUND_KEY, $("sound").checked ? "on" : "off"))
    document.addEventListener("keydown", (e) => {
        const t = e.target
        const typing = t && (t.tagName === "TEXTAREA" || t.tagName === "SELECT" ||
            (t.tagName === "INPUT" && !["checkbox", "button", "submit"].includes(t.type)))
        if (!state || e.ctrlKey || e.metaKey || e.altKey || typing) return
        const keys = {ArrowLeft: () => goto(shownPly() - 1), ArrowRight: () => goto(shownPly() + 1),
                      Home: () => goto(0), End: () => goto(state.moves.length), f: flip}
        if (keys[e.key]) {
            e.preventDefault()
            keys[e.key]()
        }
    })
    setInterval(() => { if (state && state.clock) drawClocks() }, CLOCK_REDRAW_MS)
}

async function analyseGame() {
    // The game played becomes an analysis board; one going on is abandoned only if confirmed.
    if (going() && state.moves.length &&
        !confirm("Stop this game (it has no result yet) and analyse it?")) return false
    return !!(await act("/api/new", {mode: "analysis", from_here: true, to_end: true},
                        $("game-message")))
}

function flip() {
    bottom = bottom === COLOR.white ? COLOR.black : COLOR.white
    if (state) {
        drawBoard()
        drawClocks()
        drawLines()
    }
}

function drawElo() {
    const v = Number($("elo").value)
    $("elo-label").textContent = v >= settings.elo_max ? "full strength" : `UCI_Elo ${v}`
}

async function start() {
    // the key came in the address; the server keeps it in a cookie: out of the address bar
    if (location.search) history.replaceState(null, "", "/")
    wire()
    settings = await api("/api/settings")
    const elo = $("elo")
    // the slider's steps from the bottom; its top step (at or above elo_max) is full strength
    const top = settings.elo_min + ELO_STEP * Math.ceil((settings.elo_max - settings.elo_min) / ELO_STEP)
    elo.max = top
    elo.min = settings.elo_min
    elo.step = ELO_STEP
    elo.value = top
    drawElo()
    if (settings.styles) {
        $("style-row").hidden = false
        for (const s of settings.styles) {
            const o = document.createElement("option")
            o.value = o.textContent = s
            $("style").appendChild(o)
        }
        $("style").value = settings.style_default
    }
    await openTab()
    listen()
    await refreshGames()
    document.body.dataset.ready = "1"
}

start().catch((e) => { if (!lost) notice(`the page could not start: ${e.message}`) })
