"""Common English words: shared by unrelated texts, so they never link calls or count as leaked.

About 900 of the most frequent English words plus words every web page, e-mail and API result is
full of. Lower case; compared against case-folded text.
"""

from __future__ import annotations

__all__ = ["COMMON_WORDS"]

_TEXT = """
a able about above accept access according account across act action actually add added address
after again against age ago agree ahead all allow almost alone along already also although always
am among amount an and another answer any anyone anything anyway api app appear apply april are
area argue arm around arrive art article as ask assume at attention august author available away
back bad bank base be beautiful became because become been before begin behind being believe best
better between big bill bit black blog blue board body book both box boy break bring brother
build building business but button buy by call came can cannot car card care carry case cause
center central certain chance change character check child choose city claim class clear click
close code cold college come comment common company complete computer consider contact contain
content continue control cookie cookies copy copyright correct cost could country couple course
court cover create created current customer cut dark data date daughter day dead deal dear
december decide deep default degree department describe description design detail details
develop development did die difference different direct do doctor does dog doing done door down
download draw dream drive drop during each early easy eat economic edit education effect either
else email empty end enough enter entire error even evening event ever every everyone everything
example experience explain eye face fact fall family far fast father fear february feel few field
figure file fill final finally find fine finish fire first five floor follow following food foot
for force form former forward found four free friday friend from front full fund future game
garden general get girl give given glad go god goes going gone good got government great green
ground group grow guess had hair half hand happen happy hard has have he head health hear heart
hello help her here herself high him himself his history hit hold home hope hot hour house how
however huge human hundred i idea if image important in include including increase indeed
individual industry info information inside instead interest interesting into is issue it item
its itself january job join july june just keep key kid kind know knowledge known land language
large last late later law lead learn least leave left less let letter level life light like likely
line link list listen little live local long look lose loss lot love low made main major make man
manage many march mark market matter may maybe me mean meet meeting member memory men menu message
method middle might mind minute miss model moment monday money month more morning most mother move
movie much music must my myself name national nature near need network never new news next nice
night nine no none nor north not note nothing notice november now number occur october of off offer
office often oh ok okay old on once one online only open or order other others our out outside over
own page paper parent part party pass past pay people per perhaps period person phone pick picture
piece place plan play please plus point policy political poor popular position possible post power
present press pretty price privacy private probably problem process product program project provide
public pull purpose push put quality question quick quickly quite race raise range rate rather
reach read ready real really reason receive recent record red regard related remain remember remove
reply report request require research reserved resource respond rest result return review right
rights rise road role room rule run said same saturday save saw say school search second section
security see seem seen select sell send sense september series serious serve service set seven
several shall share she short should show side sign similar simple simply since single sir site
sit situation six size small so social some someone something sometimes son soon sorry sort sound
source south space speak special stand standard start state statement status stay step still stop
story street strong student study stuff subject submit success such suggest summer sunday support
sure system table take talk task team tell ten term terms test than thank thanks that the their
them themselves then there these they thing things think third this those though thought thousand
three through thursday time title to today together told tomorrow too took top total toward town
track trade training tree true try tuesday turn two type under understand unit until up update upon
us use used user using usually value various very via view visit voice wait walk want war was watch
water way we website wednesday week weekend welcome well went were west what whatever when where
whether which while white who whole whom whose why wide wife will win window winter wish with within
without woman women word work world would write writing wrong yeah year yes yesterday yet you young
your yours yourself zero
account accounts action actions added adding address addresses admin agent agents all also answer
application applications archive attached attachment attachments available bar best browser bug
bugs build builds cache calendar called calls cancel changed changes chat client clients closed
command commands commit commits config configuration confirm connect connection console contents
context count created creating dashboard database debug default delete deleted deploy details
dev device devices dialog directory disable disabled docs document documentation documents domain
done draft edit editor enable enabled environment errors events feature features feedback fetch
fetched field fields files filter fix fixed folder footer format forum get github header headers
help home host html http https icon id image images import index input install instance internal
items javascript json label labels latest layout library license limit links load loading log login
logout logs main manager master merge merged messages meta metadata mode module more navigation new
next node notes notification notifications object open options output overview owner package
packages page pages panel param params password path pending plugin port posted posts preview
previous primary profile properties public pull query read readme recent reference refresh
release releases remote repo repos repository request requests required response results
return root run running save script scripts search server servers service services session
settings setup share sidebar sign signed skip sort source src start status storage string style
submit subscribe success summary support sync tab table tag tags template test tests text theme
thread ticket title token tool tools topic true type unread update updated upload url user users
version versions view web welcome wiki window workspace www yes
com org net io co uk de http https ftp mailto html htm php aspx json xml txt md pdf png jpg svg
"""

COMMON_WORDS: frozenset[str] = frozenset(_TEXT.split())
