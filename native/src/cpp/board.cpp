// Derived board values: control, costs, targets, scoring (board.py).
#include <algorithm>

#include "engine.h"

namespace evenstar {

int Machine::controller_of(int i) const {
    int v = s.inf_us[i], cn = s.inf_cn[i], st = t.ctrl_stab(i);
    if (v >= st && v - cn >= st) return C_USA;
    if (cn >= st && cn - std::max(v, 0) >= st) return C_CHINA;
    if (v < 0 && i != t.taiwan) return C_ANTI_US;
    return NOBODY;
}

CSet Machine::has_kind(int kind) const {
    CSet out{};
    for (int i = 0; i < t.n; ++i) {
        bool h = kind == K_USA_ ? s.inf_us[i] > 0 : kind == K_ANTI_US_ ? s.inf_us[i] < 0
                                                                      : s.inf_cn[i] > 0;
        if (h) out.set(i);
    }
    return out;
}

CSet Machine::select(int sel, int executor) const {
    CSet mask = t.sel_mask[sel];
    int ctrl = t.selectors(sel, SF_CTRL), notctrl = t.selectors(sel, SF_NOT_CTRL);
    if (ctrl >= 0 || notctrl >= 0) {
        CSet keep{};
        for (int i = 0; i < t.n; ++i) {
            int code = controller_of(i);
            bool ok = (ctrl < 0 || ((ctrl >> code) & 1)) && (notctrl < 0 || !((notctrl >> code) & 1));
            if (ok) keep.set(i);
        }
        mask = mask & keep;
    }
    int has = t.selectors(sel, SF_HAS), lacks = t.selectors(sel, SF_LACKS);
    for (int k = 0; k < 5; ++k)
        if ((has >> k) & 1) mask = mask & has_kind(kind_code(k, executor));
    for (int k = 0; k < 5; ++k)
        if ((lacks >> k) & 1) mask = mask.andnot(has_kind(kind_code(k, executor)));
    return mask;
}

CSet Machine::placement_eligible(int p) const {
    CSet own{};
    for (int i = 0; i < t.n; ++i)
        if ((p == USA ? s.inf_us[i] : s.inf_cn[i]) > 0) own.set(i);
    CSet out = own | t.adj_sp_set[p];
    for (int i = 0; i < t.n; ++i)
        if (!out.has(i) && (t.adj_set[i] & own).any()) out.set(i);
    return out;
}

int Machine::placement_cost(int p, int i) const {
    if (i == t.india) return 2;
    int c = controller_of(i);
    if (p == USA) return (c == C_CHINA || c == C_ANTI_US) ? 2 : 1;
    return c == C_USA ? 2 : 1;
}

CSet Machine::realign_targets(int p) const {
    CSet out{};
    for (int i = 0; i < t.n; ++i) {
        bool other = p == USA ? (s.inf_us[i] < 0 || s.inf_cn[i] > 0) : s.inf_us[i] > 0;
        if (other && !s.non_realignable[i] && t.has_stab_set.has(i)) out.set(i);
    }
    return out;
}

CSet Machine::trade_targets(int p, int ops) const {
    CSet ok = t.trade_set[std::min(std::max(ops, 0), 4)];
    if (p != USA) return ok;
    CSet out{};
    ok.each([&](int i) { if (s.inf_us[i] >= 0) out.set(i); });
    return out;
}

int Machine::amount(int i, int kind) const {
    if (kind == K_USA_) return std::max(int(s.inf_us[i]), 0);
    if (kind == K_ANTI_US_) return std::max(-int(s.inf_us[i]), 0);
    return s.inf_cn[i];
}

void Machine::add(int i, int kind, int points) {
    if (kind == K_CHINA_) {
        s.inf_cn[i] = int16_t(s.inf_cn[i] + points);
        return;
    }
    int before = s.inf_us[i];
    s.inf_us[i] = int16_t(kind == K_USA_ ? before + points : before - points);
    if (kind == K_USA_ && i == t.ukraine && s.misc[M_RW_STATE] == RW_ACTIVE)
        s.misc[M_RW_ADDED] += points;  // R19
}

void Machine::reduce(int i, int kind, int points) {
    if (kind == K_CHINA_) s.inf_cn[i] = int16_t(std::max(int(s.inf_cn[i]) - points, 0));
    else if (kind == K_USA_) s.inf_us[i] = int16_t(s.inf_us[i] - points);
    else if (s.inf_us[i] < 0) s.inf_us[i] = int16_t(std::min(int(s.inf_us[i]) + points, 0));
}

void Machine::remove_all(int i, int kind) {
    if (kind == K_CHINA_) s.inf_cn[i] = 0;
    else if ((kind == K_USA_ && s.inf_us[i] > 0) || (kind == K_ANTI_US_ && s.inf_us[i] < 0))
        s.inf_us[i] = 0;
}

void Machine::score_row(int row, int& us_out, int& cn_out, const int* known_ctrl) const {
    // board.score_all for one row (10.1, R18); known_ctrl: controller_of of every country.
    int own_ctrl[MAXN];
    if (!known_ctrl)
        for (int i = 0; i < t.n; ++i) own_ctrl[i] = controller_of(i);
    const int* ctrl = known_ctrl ? known_ctrl : own_ctrl;
    const CSet& P = t.region_set[row];
    if (row >= t.n_regions) {  // R18: sub-regions, 1 per controlled country, 2 per BG
        int u = 0, c = 0;
        P.each([&](int i) {
            int w = t.bg_set.has(i) ? 2 : 1;
            if (ctrl[i] == C_USA) u += w;
            if (ctrl[i] == C_CHINA) c += w;
        });
        us_out = u; cn_out = c;
        return;
    }
    int usb = 0, usn = 0, aub = 0, aun = 0, cnb = 0, cnn = 0, us_adj = 0, cn_adj = 0;
    P.each([&](int i) {
        bool b = t.bg_set.has(i);
        if (ctrl[i] == C_USA) { (b ? usb : usn)++; if (t.adj_sp_set[1].has(i)) us_adj++; }
        if (ctrl[i] == C_CHINA) { (b ? cnb : cnn)++; if (t.adj_sp_set[0].has(i)) cn_adj++; }
        if (ctrl[i] == C_ANTI_US) (b ? aub : aun)++;
    });
    int us_bg = std::max(usb - aub, 0), us_nbg = std::max(usn - aun, 0);
    auto level = [&](int mb, int mn, int ob, int on) {
        bool control = mb > ob && mn > on;
        bool domination = mb > ob && (mn >= 1 || (mn == 0 && on == 0));
        bool presence = mb + mn >= 1;
        return control ? t.region_values(row, 2) : domination ? t.region_values(row, 1)
               : presence ? t.region_values(row, 0) : 0;
    };
    us_out = level(us_bg, us_nbg, cnb, cnn) + us_bg + us_adj;
    cn_out = level(cnb, cnn, us_bg, us_nbg) + cnb + cn_adj;
}

void Machine::score_detail(int row, int out[12]) const {
    // board.score_detail: per side (level, level VP, BGs, others, adjacent, total).
    const CSet& P = t.region_set[row];
    int usb = 0, usn = 0, aub = 0, aun = 0, cnb = 0, cnn = 0, us_adj = 0, cn_adj = 0;
    P.each([&](int i) {
        int c = controller_of(i);
        bool b = t.bg_set.has(i);
        if (c == C_USA) { (b ? usb : usn)++; if (t.adj_sp_set[1].has(i)) us_adj++; }
        if (c == C_CHINA) { (b ? cnb : cnn)++; if (t.adj_sp_set[0].has(i)) cn_adj++; }
        if (c == C_ANTI_US) (b ? aub : aun)++;
    });
    if (row >= t.n_regions) {  // R18: no AU effect, 1 per country, 2 per BG
        const int v[12] = {0, 0, usb, usn, 0, 2 * usb + usn, 0, 0, cnb, cnn, 0, 2 * cnb + cnn};
        for (int k = 0; k < 12; ++k) out[k] = v[k];
        return;
    }
    int us_bg = std::max(usb - aub, 0), us_nbg = std::max(usn - aun, 0);
    auto side = [&](int* o, int mb, int mn, int ob, int on, int adj) {
        int level = (mb > ob && mn > on) ? 3 : (mb > ob && (mn >= 1 || on == 0)) ? 2
                    : (mb + mn >= 1) ? 1 : 0;
        int lvp = level ? t.region_values(row, level - 1) : 0;
        o[0] = level; o[1] = lvp; o[2] = mb; o[3] = mn; o[4] = adj; o[5] = lvp + mb + adj;
    };
    side(out, us_bg, us_nbg, cnb, cnn, us_adj);
    side(out + 6, cnb, cnn, us_bg, us_nbg, cn_adj);
}

}  // namespace evenstar
