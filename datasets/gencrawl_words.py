"""Word lists and sentence patterns for the synthetic site templates of gencrawl.py.

Everything here was written for ndd (no third-party text). Patterns use
str.format slots; gencrawl.py fills them from these lists with a seeded RNG, so
every site gets its own name, tagline, menu, blurbs, legal text and ad pool.
Place, person and company names are invented.
"""

# ---------------------------------------------------------------- English ---

EN_PLACES = [
    "Northgate", "Riverbend", "Ashford Vale", "Kestrel Bay", "Harlow", "Stonemere",
    "Wrenfield", "Oakhaven", "Bramblewood", "Cinder Falls", "Elmridge", "Fairhollow",
    "Glenmoor", "Hawthorne Cross", "Ivydale", "Juniper Point", "Larkspur", "Marsh End",
    "Nettlecombe", "Orchard Hill", "Pinecrest", "Quarry Cross", "Redwater", "Saltmarsh",
    "Upton Lea", "Valewick", "Westerly", "Yarrowby", "Brightwater", "Copperfield",
    "Dunmore Heath", "Eastbrook", "Foxley", "Greystone", "Highcliff", "Kingsmead",
    "Lowmoor", "Marlow Heath", "Port Ellery", "Rookwood", "Tidewell", "Underhill",
    "Windmere", "Amberly", "Birchwood", "Calder Rise", "Drayfield", "Emberton",
    "Falconridge", "Gildersley", "Hollin Bank", "Ironbridge Vale", "Lantern Quay",
    "Mossgrove", "Norcott", "Ouselbury", "Penhallow", "Ravensholt", "Sedgecombe",
    "Tamsworth", "Wickenby", "Alderburn", "Bellhaven", "Corrie Ford", "Dovecote",
]
EN_PAPER = [
    "Herald", "Ledger", "Courier", "Dispatch", "Observer", "Gazette", "Post", "Chronicle",
    "Review", "Times", "Bulletin", "Tribune", "Wire", "Monitor", "Sentinel", "Journal",
    "Record", "Examiner", "Echo", "Register", "Standard", "Telegraph", "Press", "Mercury",
    "Beacon", "Clarion", "Messenger", "Report", "Digest", "Insider",
]
EN_MODIFIER = ["", "", "", "", "Evening", "Morning", "Weekly", "Daily", "Business",
               "Market", "Independent", "Free", "Sunday", "Trade"]
EN_TLD = [".com", ".com", ".com", ".net", ".org", ".co.uk", ".news", ".info", ".press", ".co"]
EN_HOST_PREFIX = ["", "", "", "www.", "www.", "news.", "the"]

EN_TOPICS = [
    "markets", "commodities", "trade", "energy", "local politics", "farming", "shipping",
    "finance", "technology", "culture", "sport", "the economy", "business", "science",
    "property", "transport", "education", "health", "the arts", "industry", "banking",
    "the courts", "city hall", "the environment", "small firms", "the weather", "food",
]
EN_ADJ = ["trusted", "independent", "reliable", "fearless", "thoughtful", "fast",
          "straight-talking", "award-winning", "reader-funded", "careful", "clear-eyed",
          "honest", "lively", "curious", "no-nonsense"]
EN_PERIOD = ["day", "morning", "evening", "week", "weekday"]
EN_REGION = ["northern", "southern", "coastal", "upland", "river valley", "county",
             "regional", "western", "eastern", "lowland"]

EN_TAGLINES = [
    "{Adj} news from {place} and beyond",
    "Independent reporting on {t1} and {t2} since {year}",
    "Your {adj} source for {t1}, {t2} and {t3}",
    "Covering {region} {t1} every {period}",
    "The {place} paper of record since {year}",
    "What matters in {place}, told plainly",
    "{Adj} coverage of {t1} for {place} readers",
    "News, {t1} and {t2} for the {region} district",
    "Read by {place} every {period} since {year}",
]

EN_SECTIONS = [
    "World", "Business", "Markets", "Economy", "Politics", "Technology", "Science",
    "Health", "Sport", "Culture", "Opinion", "Energy", "Commodities", "Agriculture",
    "Local", "Weather", "Travel", "Property", "Education", "Environment", "Autos",
    "Media", "Lifestyle", "Food", "Books", "Music", "Film", "Obituaries", "Letters",
    "Podcasts", "Video", "Photos", "Events", "Jobs", "Classifieds", "Archive",
    "Newsletters", "Puzzles", "Personal Finance", "Banking", "Trade", "Shipping",
    "Mining", "Oil and Gas", "Startups", "Courts", "Crime", "City Hall", "Transport",
    "Farming", "Regional", "Asia", "Europe", "Americas", "Africa", "Middle East",
    "Analysis", "Interviews", "Columns", "Reviews", "Data", "Explainers", "Currencies",
    "Bonds", "Companies", "Retail", "Housing", "Careers", "Gardening", "Motoring",
]
EN_HOME = ["Home", "Front page", "Top stories", "Latest", "Today"]

EN_FIRST = ["Anna", "Ben", "Clara", "Daniel", "Elena", "Frank", "Grace", "Henry", "Iris",
            "Jonas", "Kate", "Leo", "Maya", "Nathan", "Olive", "Paul", "Rosa", "Samuel",
            "Tessa", "Victor", "Wendy", "Yusuf", "Abigail", "Callum", "Delia", "Edgar",
            "Fiona", "Gideon", "Hazel", "Isaac", "June", "Kieran", "Lydia", "Martin",
            "Nora", "Oscar", "Priya", "Quentin", "Ruth", "Tobias"]
EN_LAST = ["Abbott", "Barlow", "Castellan", "Dunbar", "Ellery", "Fairbairn", "Garrick",
           "Holloway", "Ingram", "Jessop", "Kendrick", "Lockwood", "Mallory", "Northcott",
           "Oakley", "Pemberton", "Quayle", "Radcliffe", "Sutherland", "Thackeray",
           "Underwood", "Vance", "Whitlock", "Yardley", "Ashdown", "Blackwood", "Corbett",
           "Draycott", "Everly", "Fenwick", "Greaves", "Hartigan", "Ives", "Jarrow",
           "Kingsley", "Lindqvist", "Merriman", "Nolan", "Okafor", "Prentice"]
EN_ROLES = ["Staff reporter", "Correspondent", "Markets editor", "Business desk",
            "Senior reporter", "News editor", "Contributing writer", "Regional reporter"]
EN_OWNER = ["{place} Media Group", "{last} & {last2} Publishing Ltd", "{place} News Company",
            "{last} Press Holdings", "{place} Publishing Trust", "{last} Communications plc",
            "The {place} Newspaper Co-operative", "{last} Media Partners"]
EN_STREETS = ["Mill", "Harbour", "Church", "Station", "Market", "Bridge", "Castle", "Victoria",
              "Wharf", "Orchard", "Chapel", "Kings", "Queens", "Abbey", "Granary", "Tanner"]
EN_STREET_TYPE = ["Street", "Road", "Lane", "Row", "Square", "Place", "Way", "Yard"]

EN_ABOUT = [
    "{site} was founded in {year} by {person} as a {adj} {medium} for readers in {place}.",
    "Today our team of {n} reporters and editors covers {t1}, {t2} and {t3} from offices in {place} and {place2}.",
    "{site} is owned by {owner} and is funded by subscriptions and advertising.",
    "The {site} newsroom follows a published code of ethics and corrects errors promptly.",
    "{site} reaches around {n2} readers every {period} in print and online.",
    "Tips and story ideas can be sent to the {site} {desk} desk at any time of day.",
    "At {site} we believe that {belief}.",
    "Our editors in {place} answer every letter that readers send to {site}.",
    "{site} has won the {place} Press Award for {t1} reporting {k} times.",
]
EN_MEDIUM = ["weekly sheet", "daily paper", "trade newsletter", "news bulletin",
             "market circular", "community paper", "evening paper"]
EN_BELIEF = ["local reporting keeps communities informed",
             "good journalism starts with listening to readers",
             "every reader deserves accurate and timely information",
             "facts should come before opinions",
             "a town needs a paper that asks hard questions",
             "clear explanations beat loud headlines"]
EN_DESK = ["news", "business", "markets", "metro", "investigations", "regional", "features"]
EN_ABOUT_HEAD = ["About us", "About {site}", "Who we are", "Our story", "About this site"]

EN_NEWSLETTER_NAME = ["Morning Briefing", "Evening Digest", "Markets Daily", "Weekend Read",
                      "Business Brief", "Local Roundup", "Week in Review", "First Edition",
                      "Closing Bell", "Town Crier"]
EN_NEWSLETTER = [
    "Get the {site} {nl} in your inbox every {period}.",
    "Sign up for the {nl} from {site} and never miss the stories that matter in {place}.",
    "The {nl} from {site}: the {k} stories you need, delivered before {hour} o'clock.",
    "Join {n2} readers who start their {period} with the {site} {nl}.",
]
EN_NL_BUTTON = ["Subscribe", "Sign up", "Join now", "Get it free", "Sign me up"]
EN_NL_HINT = ["Your email address", "Email", "name@example.com", "Enter your email"]

EN_LEGAL = [
    "Material published on {host} may not be reproduced without the written permission of {owner}.",
    "{owner} is registered in {place} under company number {num}.",
    "Prices and market data shown on {site} are delayed by at least {k} minutes and are for information only.",
    "{site} is not responsible for the content of external websites linked from its pages.",
    "Use of {host} constitutes acceptance of the {site} terms of use and privacy notice.",
    "Advertising on {site} pages does not imply endorsement by {owner} or its editors.",
    "{site} is a member of the {place} Press Standards Board and follows its editors' code.",
    "Photographs on {host} are the property of {owner} unless stated otherwise.",
]
EN_FOOTLINKS = ["About us", "Contact", "Advertise", "Careers", "Privacy policy",
                "Terms of use", "Cookie settings", "Accessibility", "Sitemap", "RSS feeds",
                "Corrections", "Ethics code", "Subscriptions", "Help centre", "Archive",
                "Newsletters", "Events", "Syndication", "Reader panel", "Complaints",
                "Staff directory", "Press releases", "Jobs with us", "Masthead", "Apps"]
EN_FOOT_HEADS = ["Company", "Services", "Help", "Follow us", "More", "Legal", "Readers"]
EN_COPYRIGHT = ["\u00a9 {y1}-{y2} {owner}. All rights reserved.",
                "Copyright {y2} {owner}. All rights reserved.",
                "\u00a9 {owner} {y1}\u2013{y2}. Registered in {place}.",
                "All content \u00a9 {y2} {owner} unless otherwise noted."]
EN_COOKIE = [  # one per CMS family: identical on every site of the family (real shared boilerplate)
    "We use cookies to remember your settings, measure traffic and show relevant offers. You can change your choices at any time in cookie settings.",
    "This website stores small files on your device to keep you signed in and to understand how pages are used. Continue browsing to accept them.",
    "By using this site you agree to our use of cookies for analytics and personalised content. Read our cookie policy for details.",
    "Cookies help us deliver our services. By clicking accept you allow us and our partners to store and access information on your device.",
    "We and selected partners use cookies or similar technologies as specified in the cookie policy. Closing this notice means you consent.",
]
EN_COOKIE_BUTTON = ["Accept", "OK", "Got it", "Accept all", "Agree"]

EN_RELATED_HEAD = ["Related stories", "More on this", "Related", "You may also like",
                   "More from {site}", "Read next", "Around the site"]
EN_MOSTREAD_HEAD = ["Most read", "Trending", "Popular now", "Most viewed", "Top five"]
EN_LATEST_HEAD = ["Latest", "Just in", "Latest headlines", "News in brief", "Updates"]
EN_PARTNER_HEAD = ["From our partners", "Sponsored", "Promoted links", "Around the web",
                   "Partner content"]
EN_READALSO = ["Read also", "See also", "Related", "More on this", "Read more"]
EN_SHARE = ["Share", "Share this", "Share on", "Send"]
EN_SHARE_TARGETS = ["Facebook", "Twitter", "LinkedIn", "Email", "Print", "WhatsApp", "Copy link"]
EN_AD_LABEL = ["Advertisement", "Sponsored", "Ad", "Promoted", "Advertising"]
EN_BYLINE = ["By {first} {last}", "By {first} {last}, {role}", "{first} {last} | {role}",
             "Written by {first} {last}", "From our {desk} desk"]
EN_DATELINE = ["Published {date}", "Updated {date}", "{date}", "Posted on {date}",
               "Last updated {date}"]
EN_WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
EN_MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
             "September", "October", "November", "December"]

# Ads: a site's pool of ~20 is drawn from these (brand word + kind + offer + call to action).
EN_BRAND_WORDS = ["Brightline", "Harbor", "Summit", "Evergreen", "Bluebell", "Keystone",
                  "Northstar", "Copperleaf", "Maple & Finch", "Silverline", "Oakmont",
                  "Riverstone", "Lighthouse", "Greenway", "Fernhill", "Redwood", "Clearview",
                  "Westwind", "Goldcrest", "Ashgrove", "Meadowlark", "Bellweather", "Tallis",
                  "Granite", "Sunhaven"]
EN_AD_KINDS = [
    ("Insurance", ["home cover from {price} a month for {place} households",
                   "car insurance quotes in under {k} minutes",
                   "pet insurance with no excess on your first claim"]),
    ("Home Loans", ["fixed rates from {pct}% for first-time buyers",
                    "switch your mortgage and save an average of {price} a year",
                    "talk to a local adviser in {place} this week"]),
    ("Travel", ["seven nights by the sea from {price} per person",
                "city breaks with flights and hotel from {price}",
                "rail tours of the mountains with a guide who knows every station"]),
    ("Furniture", ["solid oak tables made to measure in our {place} workshop",
                   "sofas up to {pct}% off this weekend only",
                   "free delivery on every bed frame until the end of the month"]),
    ("Motors", ["nearly new hatchbacks with a {k}-year warranty",
                "electric cars to test drive at our {place} showroom",
                "part exchange welcome and finance from {pct}% APR"]),
    ("Software", ["accounting made simple for small firms, first {k} months free",
                  "payroll for teams of any size with one click",
                  "back up every laptop in your office for {price} a month"]),
    ("Fitness", ["join before Friday and pay no joining fee",
                 "classes from six in the morning at our {place} club",
                 "personal training sessions from {price}"]),
    ("Solar", ["panels fitted in a day, with a {k}-year guarantee",
               "cut your energy bills by up to {pct}% this winter",
               "free roof survey for homes in {place}"]),
    ("Language School", ["learn Spanish in {k} weeks with evening classes",
                         "small groups and native teachers in central {place}",
                         "try your first lesson free"]),
    ("Garden Centre", ["spring bulbs half price while stocks last",
                       "everything for your vegetable patch under one roof",
                       "open late on Thursdays, just outside {place}"]),
    ("Broadband", ["full fibre at {k}00 Mb/s for {price} a month",
                   "no price rises for {k} years, guaranteed",
                   "switch today and we cover your exit fees"]),
    ("Accountants", ["tax returns filed on time or your money back",
                     "fixed fees for sole traders from {price}",
                     "book a free first meeting at our {place} office"]),
    ("Coffee", ["freshly roasted beans delivered every fortnight",
                "a free grinder with every annual subscription",
                "single-origin blends roasted in {place}"]),
    ("Opticians", ["two pairs of glasses from {price}",
                   "eye tests every day including Sundays",
                   "designer frames with {pct}% off for readers"]),
    ("Removals", ["house moves across {place} with fixed quotes",
                  "secure storage from {price} a week",
                  "packing service and boxes included"]),
]
EN_AD_CTA = ["Find out more", "Get a quote today", "Book now", "Call us free", "Visit us online",
             "Learn more", "Offer ends Sunday", "Terms apply", "Apply online in ten minutes",
             "See the full range"]
EN_AD_PATTERNS = ["{brand} {kind}: {offer}. {cta}.",
                  "{offer} with {brand} {kind}. {cta}.",
                  "New from {brand} {kind} \u2013 {offer}. {cta}.",
                  "{brand} {kind}. {offer}. {cta}."]

# Edits: generic sentences added by the "add_sentence" and "append_update" edits.
EN_UPDATE = [
    "This story was updated at {hour}:{mm} on {weekday} with additional reporting.",
    "{org} did not immediately respond to a request for comment on {weekday}.",
    "Additional reporting by {first} {last} in {place}.",
    "An earlier version of this article misstated a figure in the {nth} paragraph; it has been corrected.",
    "The {org} is expected to release further details {when}.",
    "Officials said more information would be published on the {org} website {when}.",
    "A spokesperson for the {org} declined to comment further when contacted by telephone.",
    "The figures were confirmed by the {org} late on {weekday} afternoon.",
    "Readers with information about this story can contact our {desk} desk.",
    "This article has been amended to include a statement from the {org}.",
    "The {org} said it would review the matter at its next meeting {when}.",
]
EN_UPDATE_HEAD = ["Update:", "UPDATE -", "Editor's note:", "Correction:", "Later:"]
EN_ORGS = ["ministry", "regional authority", "trade association", "company", "central bank",
           "port authority", "county council", "industry group", "exchange", "regulator",
           "chamber of commerce", "statistics office"]
EN_WHEN = ["later this week", "next month", "on Monday", "before the end of the quarter",
           "in the coming days", "after the holiday", "by the end of the year"]
EN_NTH = ["second", "third", "fourth", "fifth", "sixth"]

# ---------------------------------------------------------------- Chinese ---

ZH_PLACES = [("华夏", "huaxia"), ("东海", "donghai"), ("南江", "nanjiang"), ("北岭", "beiling"),
             ("西川", "xichuan"), ("青山", "qingshan"), ("临江", "linjiang"), ("云溪", "yunxi"),
             ("金沙", "jinsha"), ("白鹭", "bailu"), ("星城", "xingcheng"), ("春晖", "chunhui"),
             ("海川", "haichuan"), ("鹿鸣", "luming"), ("长河", "changhe"), ("松原", "songyuan"),
             ("知远", "zhiyuan"), ("明湖", "minghu"), ("翠屏", "cuiping"), ("清源", "qingyuan"),
             ("远帆", "yuanfan"), ("石桥", "shiqiao"), ("枫林", "fenglin"), ("银滩", "yintan"),
             ("凤台", "fengtai"), ("桃溪", "taoxi"), ("梧桐", "wutong"), ("雁门", "yanmen")]
ZH_PAPER = [("日报", "ribao"), ("晚报", "wanbao"), ("晨报", "chenbao"), ("新闻网", "news"),
            ("资讯", "zixun"), ("观察", "guancha"), ("财经", "caijing"), ("在线", "online"),
            ("周刊", "zhoukan"), ("时报", "shibao"), ("快讯", "kuaixun"), ("商报", "shangbao"),
            ("导报", "daobao"), ("热线", "rexian")]
ZH_TLD = [".cn", ".com.cn", ".com", ".net", ".cn"]
ZH_SECTIONS = ["国内", "国际", "财经", "科技", "体育", "娱乐", "汽车", "房产", "教育", "健康",
               "文化", "旅游", "社会", "评论", "图片", "视频", "专题", "本地", "股票", "基金",
               "理财", "数码", "时尚", "美食", "读书", "历史", "公益", "法治", "环保", "农业",
               "能源", "人物", "访谈", "天气", "招聘", "二手", "论坛", "博客", "政务", "民生"]
ZH_HOME = ["首页", "网站首页", "头条", "要闻"]
ZH_TOPICS = ["时政", "财经", "民生", "科技", "文化", "教育", "农业", "体育", "旅游", "法治", "环保"]
ZH_TAGLINES = [
    "{place}人自己的新闻门户",
    "传递{t1}资讯，服务{place}百姓",
    "权威、及时、贴近{place}的综合新闻平台",
    "关注{t1}与{t2}，记录{place}的每一天",
    "{year}年创刊，{place}地区主流媒体",
    "看{place}，读{site}",
]
ZH_ABOUT = [
    "{site}创办于{year}年，是{place}地区具有影响力的综合性新闻网站。",
    "{site}现有记者和编辑{n}名，重点报道{t1}、{t2}和{t3}等领域的新闻。",
    "{site}坚持真实、客观、公正的新闻原则，欢迎广大读者监督批评。",
    "{site}由{owner}主办，日均访问量超过{n2}人次。",
    "读者如有新闻线索，可随时拨打{site}热线{phone}与我们联系。",
    "{site}先后{k}次获得{place}新闻奖，是读者信赖的信息来源。",
]
ZH_ABOUT_HEAD = ["关于我们", "本站简介", "关于{site}", "网站介绍"]
ZH_NEWSLETTER = [
    "订阅{site}{nl}，每天{hour}点准时送达您的邮箱。",
    "关注{site}{nl}，第一时间了解{place}的大事小情。",
    "加入{n2}位读者的行列，免费订阅{site}{nl}。",
]
ZH_NL_NAME = ["早班车", "晚间要闻", "财经日报", "周末精选", "一周回顾", "午间快报"]
ZH_NL_BUTTON = ["立即订阅", "订阅", "免费订阅", "马上加入"]
ZH_NL_HINT = ["请输入邮箱地址", "您的邮箱", "电子邮箱"]
ZH_OWNER = ["{place}日报社", "{place}传媒集团有限公司", "{place}新闻传播中心", "{place}文化传媒有限公司",
            "{place}广播电视台"]
ZH_LEGAL = [
    "本网站所刊载信息，不代表{site}观点。",
    "未经{owner}书面授权，不得转载、摘编或利用其他方式使用{site}的作品。",
    "{owner}　增值电信业务经营许可证：{prov}B2-{num}",
    "违法和不良信息举报电话：{phone}　举报邮箱：jubao@{host}",
    "{site}提供的行情数据仅供参考，据此操作风险自担。",
    "{prov}ICP备{num}号　{prov}公网安备{num2}号",
]
ZH_PROV = ["京", "沪", "粤", "浙", "苏", "川", "鄂", "湘", "闽", "鲁", "皖", "赣"]
ZH_ADDRESS = ["地址：{place}市{road}路{k}号　邮编：{post}", "社址：{place}市{road}大道{k}号{site}大厦"]
ZH_ROADS = ["人民", "解放", "建设", "中山", "滨江", "文化", "新华", "和平", "长江", "光明"]
ZH_FOOTLINKS = ["关于我们", "联系我们", "广告服务", "招聘英才", "隐私政策", "用户协议", "网站地图",
                "版权声明", "意见反馈", "投稿指南", "法律顾问", "友情链接", "客户端下载", "帮助中心",
                "诚聘英才", "读者服务"]
ZH_FOOT_HEADS = ["关于", "服务", "帮助", "合作"]
ZH_COPYRIGHT = ["Copyright © {y1}-{y2} {host} 版权所有", "© {y2} {owner} 版权所有　保留一切权利",
                "{owner}　版权所有　{y1}-{y2}"]
ZH_COOKIE = [
    "本网站使用Cookie来改善您的浏览体验，继续浏览即表示您同意我们使用Cookie。",
    "为了向您提供更好的服务，我们会在您的设备上存储少量数据，详情请阅读隐私政策。",
    "我们使用必要的技术手段记录访问数据，用于统计分析和内容推荐。",
]
ZH_COOKIE_BUTTON = ["同意", "我知道了", "接受"]
ZH_RELATED_HEAD = ["相关阅读", "相关新闻", "延伸阅读", "猜你喜欢", "更多{site}报道"]
ZH_MOSTREAD_HEAD = ["热门排行", "点击排行", "今日热点", "本周热读"]
ZH_LATEST_HEAD = ["最新资讯", "滚动新闻", "即时新闻", "快讯"]
ZH_PARTNER_HEAD = ["合作推广", "推广信息", "赞助内容"]
ZH_READALSO = ["延伸阅读", "相关链接", "推荐阅读", "另见"]
ZH_SHARE = ["分享到", "转发", "分享"]
ZH_SHARE_TARGETS = ["微信", "微博", "QQ空间", "复制链接", "打印"]
ZH_AD_LABEL = ["广告", "推广", "赞助"]
ZH_SURNAMES = ["王", "李", "张", "刘", "陈", "杨", "黄", "赵", "吴", "周", "徐", "孙", "马", "朱",
               "胡", "郭", "何", "林", "罗", "高"]
ZH_GIVEN = ["明", "丽", "伟", "芳", "强", "敏", "静", "磊", "洋", "艳", "军", "杰", "娟", "涛",
            "超", "霞", "平", "刚", "桂英", "晓东", "雨晴", "志远", "海燕", "建国", "思琪", "子涵"]
ZH_BYLINE = ["记者　{name}", "本报记者 {name}", "文／{name}", "来源：{site}　作者：{name}",
             "{site}记者{name}报道"]
ZH_DATELINE = ["发布时间：{date}", "{date}", "更新于 {date}", "时间：{date}"]
ZH_BRANDS = ["金禾", "百川", "鸿运", "瑞丰", "安家", "乐途", "恒信", "和美", "嘉禾", "优品",
             "华彩", "青禾", "盛达", "欣然", "新程"]
ZH_AD_KINDS = [
    ("家居", ["全屋定制限时八折", "实木家具厂家直销，免费上门测量", "新品沙发满{price}元减{k}00元"]),
    ("教育", ["少儿英语暑期班火热报名中", "考研辅导小班授课，不过退费", "{k}周掌握办公软件技能"]),
    ("汽车", ["新能源车型到店试驾送好礼", "二手车{k}年质保，放心购买", "贷款购车首付低至{pct}%"]),
    ("旅游", ["海岛{k}日游，每人仅需{price}元", "周末古镇游，专车接送", "高铁游{place}，含住宿门票"]),
    ("保险", ["家庭财产险每月只要{k}元", "一年期意外险，手机投保三分钟", "健康险免费咨询，专人服务"]),
    ("装修", ["老房翻新，半包{price}元起", "免费设计效果图，满意再签约", "环保材料，{k}年保修"]),
    ("健康", ["体检套餐限时{pct}折", "口腔检查免挂号费", "中医理疗首次体验仅需{k}9元"]),
    ("宽带", ["千兆光纤包年{price}元", "新装宽带送路由器", "老用户续费享{pct}折优惠"]),
]
ZH_AD_CTA = ["立即预约", "马上咨询", "详情点击", "抢购从速", "在线报名", "欢迎来电"]
ZH_AD_PATTERNS = ["{brand}{kind}：{offer}，{cta}！", "【{brand}{kind}】{offer}。{cta}。",
                  "{offer}——{brand}{kind}，{cta}！"]
ZH_UPDATE = [
    "本文于{month}月{day}日{hour}时更新，补充了有关方面的最新回应。",
    "截至发稿时，{org}尚未就此事作出回应。",
    "记者{name}对本文亦有贡献。",
    "{org}表示，将于{when}公布更多细节。",
    "此前报道中的一处数据有误，现已更正。",
    "{org}工作人员在接受电话采访时表示，相关情况仍在进一步核实中。",
    "{org}称将在{when}召开会议研究此事。",
]
ZH_UPDATE_HEAD = ["更新：", "【更新】", "编者按：", "更正："]
ZH_ORGS = ["有关部门", "当地政府", "相关企业", "行业协会", "市统计局", "主管部门", "区教育局", "交通部门"]
ZH_WHEN = ["近期", "下周", "本月底", "下个月", "年底前", "节后"]
