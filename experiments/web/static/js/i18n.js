// Interface strings in English and Chinese; card and map names come from the content's
// Chinese fields (name_zh, text_zh).  t(key, ...args) fills {0}, {1}...
const STRINGS = {
  en: {
    title: "Dawn of the Evenstar", subtitle: "US–China rivalry from 1991 — a card-driven game",
    usa: "USA", china: "China", anti_us: "anti-US", none: "nobody",
    stability: "stability", battleground: "battleground", controlled_by: "controlled by",
    legend: "Legend", legend_name: "Country", legend_band: "purple band: battleground",
    legend_cells: "left: US (orange: anti-US), right: China",
    legend_solid: "solid cell: that side controls it", legend_stab: "circle: stability",
    legend_nr: "NR: cannot be realigned", legend_adj: "adjacent (same region)",
    legend_cross: "adjacent across regions", legend_sp: "adjacent to a superpower",
    legend_choice: "a country you may choose now",
    legend_recent: "influence changed in your opponent's last turn",
    legend_recent_of: "influence changed in {0}'s last turn",
    legend_subregion: "sub-region band (Former USSR, Southeast Asia)",
    subregion_cell: "{0} ctrl ({1} BG)",
    subregion_tip: "Sub-region: no presence/domination/control. Its scoring card gives 1 VP per country controlled, 2 per battleground (10.3); anti-US control counts for nobody.",
    new_game: "New game", resume: "Resume your last game", play_agent: "Play against an agent", your_side: "Your side",
    opponent: "Opponent", start: "Start", hotseat: "Hot-seat (two players, one screen)",
    remote: "Two browsers (each player their own link)", watch: "Watch agent vs agent",
    speed: "Seconds per move", replay: "Replay a record", record_file: "Record file (JSON)",
    record_path: "or a record name on the server", load: "Load", analysis_opt: "Analysis panel",
    links_title: "Private links — give each player theirs", open_link: "Open",
    link_usa: "US player's link", link_china: "China player's link", link_watch: "Spectators",
    turn: "Turn", round: "Round", phase: "Phase", era: "Era", vp: "VP", reserves: "Reserves",
    hand: "Your hand", hand_count: "{0} cards", hand_more: "more cards: scroll the hand sideways →", hand_sizes: "Hands (US/China)", zoom: "Zoom", opp_hand: "{0} holds {1} cards", draw_pile: "Draw pile: {0}",
    in_play: "In play", discard: "Discard", removed: "Removed", playing: "Being played",
    headlines: "Headlines", none_yet: "—", regions: "Regions", score_now: "Scoring now",
    presence: "presence", domination: "domination", control: "control",
    decision: "Decision", waiting_for: "Waiting for {0}…", your_move: "Your move ({0})",
    choose_country: "Choose a highlighted country on the map.",
    choose_card: "Choose a highlighted card.", undo: "Undo", log: "Log", analysis: "Analysis",
    analysis_show: "Show analysis", value: "Value (for you)", top_moves: "Top moves",
    war_title: "Total war?", war_text: "This can lose the game by total war (10.2).",
    confirm: "Do it anyway", cancel: "Cancel", game_over: "Game over",
    replay_this: "Replay this game", download_record: "Download the record", new_game: "New game",
    mod_counter: "Counter", mod_cost: "costs {0} reserve(s)",
    winner: "{0} wins", draw: "Draw", reason: "Reason",
    pass_title: "Pass the device to {0}", pass_text: "{0}: press the button when only you can see the screen.",
    pass_button: "I am {0} — show my hand", spectator: "Spectator", you_are: "You play {0}",
    history: "History card", outcomes: "Outcomes (die roll after modifiers)",
    modifiers: "Modifiers", modifier_value: "{0}: {1} (cost {2})", picked: "Picked: {0}",
    ops: "{0} ops", scoring: "Scoring", event_usa: "US event", event_china: "China event",
    event_neutral: "Neutral event", persistent: "stays in play", removed_after: "removed after event",
    timeline: "Decision {0} of {1}", jump_turn: "Turn", jump_round: "Round", jump: "Jump",
    prev: "◀", next: "▶", home: "Start page", language: "中文", error: "Error: {0}",
    tracks: "Tracks", diplomacy: "Diplomacy", regional_security: "Regional security",
    social: "Social", economy: "Economy", russia: "Russia", tech: "Tech",
    social_usa: "US social", social_china: "China social", economy_usa: "US economy",
    economy_china: "China economy", tech_usa: "US tech", tech_china: "China tech",
    agent: "Agent", watching: "Watching {0} vs {1}", known_cards: "Cards of {0} you have seen",
    phase_setup: "setup", phase_history: "history", phase_deal: "deal", phase_headline: "headline",
    phase_action: "action", phase_economy: "economy", phase_scoring: "scoring", phase_final: "final scoring",
    phase_improve: "improvement", phase_russia_ukraine: "Russia–Ukraine", phase_over: "over",
    era_early: "early", era_mid: "mid", era_late: "late",
    about_agent: "You against an AI opponent: heuristic, learned (the trained policy), rollout:SIMS (the policy with play-outs, the strongest), alphaism:SIMS or ismcts:ITER.",
    about_hotseat: "Two people at one screen; each hand is hidden until its player confirms they are alone.",
    about_remote: "Two people on two browsers: each seat gets a private link; send the other one to your opponent.",
    about_watch: "Two agents play each other at the speed you choose.",
    about_replay: "Any record: played here, from the arena or from a balance study. Timeline and jumps.",
    other_options: "Options", stale: "That choice was already made (another tab?); refreshed.",
  },
  zh: {
    title: "晨曦暮星", subtitle: "1991 年以来的中美博弈 — 卡牌驱动游戏",
    usa: "美国", china: "中国", anti_us: "反美", none: "无人",
    stability: "稳定度", battleground: "战场国", controlled_by: "控制方",
    legend: "图例", legend_name: "国家", legend_band: "紫色标题：战场国",
    legend_cells: "左：美国（橙色：反美），右：中国", legend_solid: "实心格：该方控制",
    legend_stab: "圆圈：稳定度", legend_nr: "NR：不可调整", legend_adj: "相邻（同一区域）",
    legend_cross: "跨区域相邻", legend_sp: "与超级大国相邻", legend_choice: "现在可选的国家",
    legend_recent: "对手上一轮中影响力有变化", legend_recent_of: "{0}上一轮中影响力有变化",
    legend_subregion: "子区域框（前苏联国家、东南亚）",
    subregion_cell: "控制 {0}·战场 {1}",
    subregion_tip: "子区域：不计存在/优势/控制。其计分卡每控制一国得 1 分，战场国 2 分（10.3）；反美控制不计入任何一方。",
    new_game: "新游戏", resume: "继续上一局", play_agent: "对战 AI", your_side: "你的阵营", opponent: "对手",
    start: "开始", hotseat: "同屏双人（轮流使用同一屏幕）", remote: "双浏览器（每位玩家各自的链接）",
    watch: "观看 AI 对战", speed: "每步秒数", replay: "回放记录", record_file: "记录文件（JSON）",
    record_path: "或服务器上的记录名", load: "载入", analysis_opt: "分析面板",
    links_title: "私人链接 — 分别交给每位玩家", open_link: "打开",
    link_usa: "美国玩家链接", link_china: "中国玩家链接", link_watch: "观众",
    turn: "回合", round: "行动轮", phase: "阶段", era: "时期", vp: "胜利点", reserves: "外汇储备",
    hand: "你的手牌", hand_count: "{0} 张", hand_more: "还有更多手牌：横向滚动 →", hand_sizes: "手牌数（美/中）", zoom: "缩放", opp_hand: "{0} 持有 {1} 张牌", draw_pile: "抽牌堆：{0}",
    in_play: "在场", discard: "弃牌堆", removed: "移除", playing: "正在打出",
    headlines: "头条", none_yet: "—", regions: "区域", score_now: "现在计分",
    presence: "存在", domination: "优势", control: "控制",
    decision: "决策", waiting_for: "等待 {0}…", your_move: "轮到你（{0}）",
    choose_country: "在地图上选择高亮的国家。", choose_card: "选择高亮的卡牌。", undo: "悔棋",
    log: "日志", analysis: "分析", analysis_show: "显示分析", value: "局面评估（对你）",
    top_moves: "推荐着法", war_title: "全面战争？", war_text: "此举可能因全面战争而输掉游戏（10.2）。",
    confirm: "仍然执行", cancel: "取消", game_over: "游戏结束",
    replay_this: "回放本局", download_record: "下载记录", new_game: "新游戏",
    mod_counter: "反制", mod_cost: "花费 {0} 外汇储备", winner: "{0} 获胜", draw: "平局",
    reason: "原因", pass_title: "请把设备交给{0}", pass_text: "{0}：确认只有你能看到屏幕后再点击按钮。",
    pass_button: "我是{0} — 显示我的手牌", spectator: "观众", you_are: "你执{0}",
    history: "历史牌", outcomes: "结果（修正后的骰点）", modifiers: "修正",
    modifier_value: "{0}：{1}（花费 {2}）", picked: "已选：{0}", ops: "{0} 点行动",
    scoring: "计分", event_usa: "美国事件", event_china: "中国事件", event_neutral: "中立事件",
    persistent: "持续在场", removed_after: "事件后移除", timeline: "第 {0} / {1} 个决策",
    jump_turn: "回合", jump_round: "行动轮", jump: "跳转", prev: "◀", next: "▶",
    home: "开始页", language: "English", error: "错误：{0}", tracks: "状态轨",
    diplomacy: "外交", regional_security: "地区安全", social: "社会", economy: "经济",
    russia: "俄罗斯", tech: "科技", social_usa: "美国社会", social_china: "中国社会",
    economy_usa: "美国经济", economy_china: "中国经济", tech_usa: "美国科技", tech_china: "中国科技",
    agent: "AI", watching: "观看 {0} 对 {1}", known_cards: "你见过的{0}手牌",
    phase_setup: "准备", phase_history: "历史事件", phase_deal: "发牌", phase_headline: "头条",
    phase_action: "行动轮", phase_economy: "经济", phase_scoring: "计分", phase_final: "最终计分",
    phase_improve: "改善", phase_russia_ukraine: "俄乌战争", phase_over: "结束",
    era_early: "早期", era_mid: "中期", era_late: "后期",
    about_agent: "与 AI 对战：heuristic、learned（训练出的策略）、rollout:SIMS（策略加推演，最强）、alphaism:SIMS 或 ismcts:ITER。",
    about_hotseat: "两人共用一个屏幕；每方的手牌在其确认独自观看前隐藏。",
    about_remote: "两人各用一个浏览器：每方有私人链接，把另一条发给对手。",
    about_watch: "两个 AI 以你选择的速度对战。",
    about_replay: "任何记录：本服务器、竞技场或平衡性研究的对局。带时间轴与跳转。",
    other_options: "选项", stale: "该选择已被做出（另一个标签页？）；已刷新。",
  },
};

let lang = (typeof localStorage !== "undefined" && localStorage.getItem("evenstar.lang")) || "en";
if (!(lang in STRINGS)) lang = "en";

export function getLang() { return lang; }
export function setLang(l) {
  lang = l in STRINGS ? l : "en";
  localStorage.setItem("evenstar.lang", lang);
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
}

export function t(key, ...args) {
  const s = STRINGS[lang][key] ?? STRINGS.en[key] ?? key;
  return s.replace(/\{(\d)\}/g, (_, k) => String(args[Number(k)] ?? ""));
}

export const countryName = (c) => (lang === "zh" && c.name_zh ? c.name_zh : c.name);
export const regionName = (r) => (lang === "zh" && r.name_zh ? r.name_zh : r.name);
export const cardName = (c) => (lang === "zh" && c.name_zh ? c.name_zh : c.name);
export const cardText = (c) => (lang === "zh" && c.text_zh ? c.text_zh : c.text);
/** A phase or era name from the engine ("history", "mid"), in the current language. */
export const termName = (kind, name) => {
  const key = `${kind}_${String(name).replace(/[^a-z]+/gi, "_").toLowerCase()}`;
  const s = t(key);
  return s === key ? String(name) : s;
};
export const sideName = (s) => (s ? t(s) : t("none"));
